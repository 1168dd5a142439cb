"""Errors written by their formula, for :mod:`.stopscores`: ``np.sqrt(np.mean((pred - y_test) ** 2))`` (the RMSE),
``np.abs(pred - y).mean()`` (the MAE) score the rows they read as a metric call does.

A mean or a sum of squared or absolute differences is such an error when the difference compares two things, the
predictions with the truth (``pred - y``, ``df.pred - df.y``, ``df['pred'] - df['y']``). The same formula over one
array and itself is a statistic of that array, no score: ``np.sum((a[:, None, :] - a[None, :, :]) ** 2, axis=-1)``
(its rows' pairwise squared distances, NumPy broadcasting) or ``np.mean((x - x.mean()) ** 2)`` (its variance); read
as a score of the rows it reads, a distance matrix of a table holding test rows would pass for "another held-out
part scored" and silence an early-stopping finding (issue 17, stop 55's regression A).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk, walk_once


def _one_array(diff: ast.BinOp, modules: frozenset[str]) -> bool:
    """Both sides of ``diff`` read the same one array and no column of it: ``data[:, None] - data[None, :]`` (the
    pairwise differences of its rows, a distance matrix), ``x - x.mean()`` (deviations from its own mean, a
    spread). An error compares two things, the predictions with the truth (``pred - y``, ``df.pred - df.y``,
    ``df['pred'] - df['y']``); a difference of one array with itself is a statistic of it, no score."""
    sides: list[set[str]] = []
    for side in (diff.left, diff.right):
        nodes = walk(side)
        methods = {id(n.func) for n in nodes if isinstance(n, ast.Call)}  # x.mean(): the method of x, no column
        for n in nodes:
            if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                return False  # df['pred']: a column
            if isinstance(n, ast.Attribute) and id(n) not in methods and \
                    isinstance(n.value, ast.Name) and n.value.id not in modules:
                return False  # df.pred: a column (np.newaxis is the module's)
        sides.append({n.id for n in nodes if isinstance(n, ast.Name) and n.id not in modules})
    return bool(sides[0]) and sides[0] == sides[1]


def _error_term(node: ast.expr, modules: frozenset[str]) -> bool:
    """``(p - y) ** 2`` or ``abs(p - y)``/``np.abs(p - y)`` somewhere in ``node``: a squared or absolute error
    (not of one array with itself: :func:`_one_array`)."""
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) and isinstance(n.left, ast.BinOp) and \
                isinstance(n.left.op, ast.Sub) and not _one_array(n.left, modules):
            return True
        if isinstance(n, ast.Call) and call_name(n) in ("abs", "fabs", "absolute") and n.args and \
                isinstance(n.args[0], ast.BinOp) and isinstance(n.args[0].op, ast.Sub) and \
                not _one_array(n.args[0], modules):
            return True
    return False


def handwritten_error(node: ast.Call, modules: frozenset[str]) -> list[ast.expr] | None:
    """The operands of a mean or sum of errors written by hand (``np.sqrt(np.mean((pred - y_test) ** 2))``,
    ``np.abs(pred - y).mean()``: the RMSE and MAE by their formulas), else ``None``; ``modules``: the names the
    module imports (``np`` of ``np.mean`` reads no rows)."""
    if call_name(node) not in ("mean", "nanmean", "average", "sum"):
        return None
    operands = [*node.args, *([node.func.value] if isinstance(node.func, ast.Attribute) else [])]
    return operands if any(_error_term(o, modules) for o in operands) else None


def imported_names(tree: ast.Module) -> frozenset[str]:
    """The names ``tree``'s imports bind (``np``, ``pd``, ``math``): modules and their members, no rows."""
    return frozenset((a.asname or a.name).split(".")[0] for n in walk_once(tree)
                     if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names)


__all__ = ["handwritten_error", "imported_names"]
