"""Sliding windows cut from a series, for the static leakage analysis's ``shuffled_time_split``.

``for i in range(len(s) - n): X.append(s[i:i + n]); y.append(s[i + n])`` turns one series into overlapping
windows: window ``i + 1`` repeats all but one value of window ``i``, and the value one window predicts sits inside
the next windows. Split with shuffling (``train_test_split``'s default), the training windows contain the test
windows' targets and their future: the same leak as lag features split with shuffling (scikit-learn user guide,
"Cross-validation of time series data": use ``TimeSeriesSplit``).

A window is a slice ``a[i:i + k]`` whose start is the variable of an enclosing ``for`` loop over ``range`` with a
step of 1 (consecutive starts: the windows overlap when ``k > 1``). Mini-batches (``range(0, n, batch)``, a step as
large as the slice) do not overlap and are not windows; a slice of one item (``i:i + 1``) is a row.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _step_one_range(node: ast.expr) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"):
        return False
    if len(node.args) < 3:
        return True
    step = node.args[2]
    return isinstance(step, ast.Constant) and step.value == 1


def window_starts(tree: ast.Module) -> dict[int, str]:
    """``id`` of each slice node ``a[i:i + k]`` (``k`` not 1) inside a ``for i in range(...)`` loop with step 1 ->
    the loop variable's name."""
    out: dict[int, str] = {}
    for loop in walk_once(tree):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and _step_one_range(loop.iter)):
            continue
        var = loop.target.id
        for n in (n for stmt in loop.body for n in ast.walk(stmt)):
            if not (isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice)):
                continue
            lo, hi = n.slice.lower, n.slice.upper
            if not (isinstance(lo, ast.Name) and lo.id == var and isinstance(hi, ast.BinOp)
                    and isinstance(hi.op, ast.Add) and n.slice.step is None):
                continue
            other = hi.right if isinstance(hi.left, ast.Name) and hi.left.id == var else hi.left \
                if isinstance(hi.right, ast.Name) and hi.right.id == var else None
            if other is not None and not (isinstance(other, ast.Constant) and other.value == 1):
                out[id(n.slice)] = var
    return out


def positional_items(node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> bool:
    """A comprehension over positions whose item is a piece of one array cut at that position:
    ``[s[i - w:i] for i in range(w, len(s))]`` (windows) or ``[s[i, 0] for i in range(len(s))]`` (rows). Like the
    list built by ``append`` in a ``for i in range(...)`` loop (:mod:`.frames`), its items keep the rows they were
    cut from, in order, so a slice of the list (``xs[-50:]``) is that part of the array."""
    gen = node.generators[0] if len(node.generators) == 1 else None
    if gen is None or gen.ifs or not isinstance(gen.target, ast.Name) or not (
            isinstance(gen.iter, ast.Call) and isinstance(gen.iter.func, ast.Name) and gen.iter.func.id == "range"):
        return False
    elt = node.elt
    return isinstance(elt, ast.Subscript) and any(
        isinstance(n, ast.Name) and n.id == gen.target.id for n in ast.walk(elt.slice))


__all__ = ["positional_items", "window_starts"]
