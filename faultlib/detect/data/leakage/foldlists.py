"""Lists filled with one item per fold of a cross-validation loop and stacked, so that a mean over them averages the
folds' items for each row -- an ensemble of the fold models' outputs -- and is no statistic of the rows.

The list form of :mod:`~faultlib.detect.data.leakage.predbuffers`' preallocated buffer, common in deep-learning
competition code (issue 17, wave 74: an audio keyword-spotting solution, six scripts in two copies)::

    preds_test = []
    for fold, (tr, va) in enumerate(skf.split(paths, labels)):
        model.load_state_dict(torch.load(f"fold{fold}.pth"))
        preds_test.append(run_inference(model, test_loader))
    preds_test = np.stack(preds_test)
    submission[classes] = preds_test.mean(0)

Each pass of the loop appends one fold's whole output, so the list has one item per fold and ``np.stack`` puts the
folds on a new first axis (numpy reference, ``numpy.stack``: "Join a sequence of arrays along a new axis"; so do
``np.array`` and ``torch.stack`` of equal-shaped items). Whatever the first axis is reduced by, it mixes folds, not
rows: nothing learnt from the test rows reaches a model. ``np.concatenate`` / ``np.vstack`` join the items along
their own rows instead and are not such a stack (a list of out-of-fold parts concatenated is a column of rows).

The loop must walk a splitter's folds: ``for tr, va in kf.split(X)`` (enumerated or not, two index names), or a
range counted over folds (:mod:`~faultlib.detect.data.leakage.foldranges`). A list appended to anywhere else, or
bound to anything but ``[]`` and a stack of itself, is not one of these.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.foldranges import counted_fold_loop
from faultlib.detect.data.leakage.heldlabels import split_pair
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import tree_fact, walk_once

#: calls that put a list's items on a new first axis
_STACKS = frozenset({"stack", "array", "asarray", "tensor", "as_tensor"})


def _called(node: ast.expr) -> str | None:
    return call_name(node) if isinstance(node, ast.Call) else None


def _inner_loop(tree: ast.Module, line: int) -> ast.For | None:
    inner: ast.For | None = None
    for node in walk_once(tree):
        if isinstance(node, ast.For) and node.lineno < line <= (node.end_lineno or node.lineno) and (
                inner is None or node.lineno > inner.lineno):
            inner = node
    return inner


def _per_fold(tree: ast.Module, line: int) -> bool:
    """The innermost loop around ``line`` walks folds."""
    loop = _inner_loop(tree, line)
    if loop is None:
        return False
    pair = split_pair(loop)
    return pair is not None and all(isinstance(e, ast.Name) for e in pair) or counted_fold_loop(tree, line) is not None


def _stack_of(value: ast.expr, name: str) -> bool:
    """``np.stack(name)`` / ``np.array(name)`` / ``torch.stack(name, 0)``: the list stacked on a new first axis."""
    return isinstance(value, ast.Call) and _called(value) in _STACKS and bool(value.args) and isinstance(
        value.args[0], ast.Name) and value.args[0].id == name and not any(
        k.arg in ("axis", "dim") for k in value.keywords) and len(value.args) <= (2 if _called(value) == "stack" else 1)


def stacked_list(node: ast.expr) -> ast.Name | None:
    """The list ``node`` stacks on a new first axis (``np.array(preds)``, ``np.stack(preds)``), else ``None``: a
    reduction written around the stack (``np.mean(np.array(preds), axis=0)``, wave 92) reduces the same stack as
    one over a name bound to it."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and _stack_of(
            node, node.args[0].id):
        return node.args[0]
    return None


def scoped_nodes(tree: ast.AST) -> list[tuple[ast.AST, int]]:
    """Every node with the id of the function whose body holds it (0: the module): a name bound in one function is
    another variable than the same name in another (a helper's ``preds = model.predict(test)`` beside the caller's
    ``preds = []`` that collects the folds' outputs, wave 92)."""
    out: list[tuple[ast.AST, int]] = []
    todo: list[tuple[ast.AST, int]] = [(tree, 0)]
    while todo:
        node, scope = todo.pop()
        for child in ast.iter_child_nodes(node):
            out.append((child, scope))
            inner = id(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else scope
            todo.append((child, inner))
    return out


def list_uses(tree: ast.AST) -> tuple[dict[tuple[int, str], list[ast.expr]], dict[tuple[int, str], list[ast.Call]]]:
    """Per ``(scope, name)`` (:func:`scoped_nodes`): the values bound to the name (a name bound by unpacking or an
    augmented or annotated assignment: its target) and its ``append``/``extend``/``insert`` calls. Shared and
    remembered (:func:`~faultlib.pyflow.walk.tree_fact`): read them, never change them."""
    return tree_fact(tree, _list_uses)


def _list_uses(tree: ast.AST) -> tuple[dict[tuple[int, str], list[ast.expr]], dict[tuple[int, str], list[ast.Call]]]:
    bindings: dict[tuple[int, str], list[ast.expr]] = {}
    calls: dict[tuple[int, str], list[ast.Call]] = {}
    for node, scope in scoped_nodes(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        bindings.setdefault((scope, n.id), []).append(node.value if n is target else target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            bindings.setdefault((scope, node.target.id), []).append(node.target)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                node.func.value, ast.Name) and node.func.attr in ("append", "extend", "insert"):
            calls.setdefault((scope, node.func.value.id), []).append(node)
    return bindings, calls


def fresh_list(values: list[ast.expr], name: str) -> bool:
    """``values`` (the bindings of ``name``) are ``[]`` (at least once) and stacks of the list itself."""
    return any(isinstance(v, ast.List) and not v.elts for v in values) and all(
        isinstance(v, ast.List) and not v.elts or _stack_of(v, name) for v in values)


def fold_lists(tree: ast.Module) -> frozenset[str]:
    """Names bound only to ``[]`` and to a stack of themselves, appended to (at least once) only inside a loop over
    folds (see the module docstring), within one function (or the module)."""
    bindings, calls = list_uses(tree)
    out = set()
    for key, added in calls.items():
        if fresh_list(bindings.get(key, []), key[1]) and all(
                c.func.attr == "append" and _per_fold(tree, c.lineno) for c in added):  # type: ignore[attr-defined]
            out.add(key[1])
    return frozenset(out)


__all__ = ["fold_lists", "fresh_list", "list_uses", "scoped_nodes", "stacked_list"]
