"""A group's distinct count written as a function: ``groupby(k).apply(lambda g: len(set(g['c'])))`` or
``apply(lambda g: g['c'].nunique())`` counts the distinct values of each group's rows, the same count as
``groupby(k)['c'].nunique()`` (:mod:`.counts`): over train and test stacked it counts the test rows too (pandas
API: "GroupBy.apply: the function is passed each group as a DataFrame"; wave 57, a music-recommendation winner's
per-member artist counts over the train and test interactions appended together).
"""

from __future__ import annotations

import ast


def _uses(node: ast.AST, param: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == param for n in ast.walk(node))


def distinct_count_lambda(node: ast.expr) -> bool:
    """``lambda g: len(set(g[...]))``, ``lambda g: len(np.unique(g[...]))``, ``lambda g: g[...].nunique()``: a
    function that counts the distinct values of the rows it is given."""
    if not isinstance(node, ast.Lambda) or not node.args.args:
        return False
    param = node.args.args[0].arg
    for n in ast.walk(node.body):
        if not isinstance(n, ast.Call):
            continue
        if isinstance(n.func, ast.Attribute) and n.func.attr == "nunique" and _uses(n.func.value, param):
            return True
        if isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1 and \
                isinstance(inner := n.args[0], ast.Call) and _uses(inner, param) and (
                    isinstance(inner.func, ast.Name) and inner.func.id == "set" or
                    isinstance(inner.func, ast.Attribute) and inner.func.attr == "unique"):
            return True
    return False


__all__ = ["distinct_count_lambda"]
