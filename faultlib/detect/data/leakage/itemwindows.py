"""Sliding windows gathered value by value, for the static leakage analysis's ``shuffled_time_split``.

:mod:`.windows` reads a window cut as a slice, ``s[j:j + k]`` for consecutive ``j``. The same windows are often
gathered one value at a time, an inner comprehension over the offsets inside an outer one over the starts::

    X = [[load[i + j] for i in range(look_back)] for j in range(len(load) - look_back)]

(or ``for j in range(...): X.append([load[j + i] for i in range(k)])``). Window ``j + 1`` repeats all but one value
of window ``j``, exactly as the sliced windows do, so a shuffled split of them puts a test window's values, and the
values it predicts, inside the training windows around it (issue 17 wave 85: an hourly load series in 25-hour
windows built this way, then ``train_test_split`` with its default shuffling; scikit-learn user guide,
"Cross-validation of time series data").

The outer comprehension's items are then windows of the series, in order, as a comprehension of slices is
(:func:`.windows.positional_items`): :func:`gathered_windows` says so, so the list keeps the series' rows and the
split of it is the split of a time series.

Read syntactically: an item ``a[i + j]`` (or ``a[j + i]``) of a comprehension whose one ``for`` runs ``i`` over a
``range`` of a width that is not the constant 1, inside a ``for`` loop or a comprehension whose one ``for`` runs
``j`` over a ``range`` with a step of 1 (consecutive starts). Offsets over a range of one item are single rows, not
windows, and starts that jump (``range(0, n, k)``) are :mod:`.windows`' business (a hop written from the width).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

__all__ = ["gathered_windows", "item_window_starts"]


def _range(node: ast.expr) -> ast.Call | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and node.args:
        return node
    return None


def _consecutive(node: ast.expr) -> bool:
    """``range(n)``, ``range(a, b)`` or ``range(a, b, 1)``: starts one apart."""
    call = _range(node)
    if call is None:
        return False
    return len(call.args) < 3 or isinstance(call.args[2], ast.Constant) and call.args[2].value == 1


def _wider_than_one(node: ast.expr) -> bool:
    """``range(k)`` / ``range(0, k)`` with ``k`` not the constant 1 (a window of offsets)."""
    call = _range(node)
    if call is None or len(call.args) > 2:
        return False
    if len(call.args) == 2 and not (isinstance(call.args[0], ast.Constant) and call.args[0].value == 0):
        return False
    width = call.args[-1]
    return not (isinstance(width, ast.Constant) and width.value in (0, 1))


def _one_for(node: ast.AST) -> tuple[str, ast.expr] | None:
    """A comprehension with one ``for`` over a name: that name and what it runs over."""
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 and isinstance(
            node.generators[0].target, ast.Name) and not node.generators[0].ifs:
        return node.generators[0].target.id, node.generators[0].iter
    return None


def _sum_of(index: ast.expr, a: str, b: str) -> bool:
    return isinstance(index, ast.BinOp) and isinstance(index.op, ast.Add) and isinstance(
        index.left, ast.Name) and isinstance(index.right, ast.Name) and {index.left.id, index.right.id} == {a, b}


def item_window_starts(tree: ast.Module) -> dict[int, str]:
    """``id`` of each index ``i + j`` of an item gathered into a window (see the module docstring) -> the name of
    the start."""
    out: dict[int, str] = {}
    for outer in walk_once(tree):
        if isinstance(outer, ast.For) and isinstance(outer.target, ast.Name):
            start, starts, body = outer.target.id, outer.iter, [n for s in outer.body for n in ast.walk(s)]
        elif _one_for(outer) is not None:
            start, starts = _one_for(outer)  # type: ignore[misc]
            body = list(ast.walk(outer.elt))  # type: ignore[attr-defined]
        else:
            continue
        if not _consecutive(starts):
            continue
        for inner in body:
            found = _one_for(inner)
            if found is None or found[0] == start or not _wider_than_one(found[1]):
                continue
            elt = inner.elt  # type: ignore[attr-defined]
            if isinstance(elt, ast.Subscript) and _sum_of(elt.slice, found[0], start):
                out[id(elt.slice)] = start
    return out


def gathered_windows(node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> bool:
    """``[[a[i + j] for i in range(k)] for j in range(n)]``: a comprehension over consecutive starts whose item is a
    window gathered item by item (see the module docstring)."""
    outer = _one_for(node)
    if outer is None or not _consecutive(outer[1]):
        return False
    inner = _one_for(node.elt)
    if inner is None or inner[0] == outer[0] or not _wider_than_one(inner[1]):
        return False
    elt = node.elt.elt  # type: ignore[attr-defined]
    return isinstance(elt, ast.Subscript) and _sum_of(elt.slice, inner[0], outer[0])
