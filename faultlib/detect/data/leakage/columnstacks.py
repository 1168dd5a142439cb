"""``np.vstack`` of single columns builds a feature matrix (transposed), it does not repeat rows.

``X = np.transpose(np.vstack((np.array(df.texture_mean), np.array(df.radius_mean))))``: NumPy's ``vstack`` turns
each 1-D array into one row of the result ("numpy.vstack": "1-D arrays of shape (N,) are reshaped to (1, N)"), so
two columns of one table stack into a 2 x N array whose transpose has the table's N rows and two features. Both
items come from the same rows, which :func:`~faultlib.detect.data.leakage.stacks.repeated_rows` takes for a table
stacked with its own rows (oversampling by hand). Wave 58 (a biomedical course's neural network notebook): the
stack of two columns of the breast-cancer table was reported as fitted before the split.

Read from the code: each item is a column of a table -- ``df.col`` or ``df['col']``, possibly wrapped in
``np.array``/``np.asarray``/``list`` or followed by ``.values``/``.to_numpy()`` -- written in the call or bound to
a plain name by an earlier assignment. ``pd.concat`` of columns (no ``axis=1``) does stack rows and stays as it was.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_STACKS = frozenset({"vstack", "row_stack"})
_WRAPPERS = frozenset({"array", "asarray", "list", "ravel", "to_numpy", "flatten"})


def _last_binding(tree: ast.AST, name: str, before: int) -> ast.expr | None:
    found: tuple[int, ast.expr] | None = None
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id == name and node.lineno < before and (found is None or node.lineno > found[0]):
            found = (node.lineno, node.value)
    return found[1] if found else None


def _column(expr: ast.expr, tree: ast.AST, line: int, depth: int = 0) -> bool:
    """``expr`` is one column of a table."""
    if isinstance(expr, ast.Name) and depth == 0:
        bound = _last_binding(tree, expr.id, line)
        return bound is not None and _column(bound, tree, line, depth + 1)
    if isinstance(expr, ast.Call):
        func = expr.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if called not in _WRAPPERS:
            return False
        inner = func.value if isinstance(func, ast.Attribute) and not expr.args else expr.args[0] if expr.args \
            else None
        return inner is not None and _column(inner, tree, line, depth + 1)
    if isinstance(expr, ast.Attribute):
        if expr.attr == "values":
            return _column(expr.value, tree, line, depth + 1)
        return isinstance(expr.value, ast.Name)  # df.radius_mean
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        return isinstance(expr.value, ast.Name) and isinstance(key, ast.Constant) and isinstance(key.value, str)
    return False


def stacks_columns(node: ast.Call, tree: ast.AST) -> bool:
    """``np.vstack((a, b))`` whose items are all single columns of a table: a feature matrix, not a row stack."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in _STACKS or not node.args or not isinstance(node.args[0], (ast.Tuple, ast.List)):
        return False
    items = node.args[0].elts
    return len(items) > 1 and all(_column(e, tree, node.lineno) for e in items)


__all__ = ["stacks_columns"]
