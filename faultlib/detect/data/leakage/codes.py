"""Category codes re-based to start at zero are a relabelling, not a statistic of values, for the static
leakage analysis.

Memory-saving preprocessing (the M5 forecasting kernels) turns an id column into its category codes and shifts
them to start at zero::

    sales[col] = sales[col].cat.codes.astype("int16")
    sales[col] -= sales[col].min()

The minimum of category codes is the code of the first category present: subtracting it renames the
categories, every row keeps its category and every pair of rows keeps its order. It learns nothing of the
values the test rows hold beyond the category set the codes already are, which the house reports at ``info``
for a label encoding of features (:func:`~faultlib.detect.data.leakage.targets.feature_encoding`). So ``min()``
/``max()`` of a column last assigned from codes (pandas ``.cat.codes``, ``pd.Categorical(...).codes``,
``pd.factorize(...)``) is no fit. A minimum of values (``df['price'] - df['price'].min()``) still is.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_BOUNDS = frozenset({"min", "max"})


def _reads_codes(value: ast.expr) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "codes" or isinstance(n, ast.Call) and isinstance(
        n.func, (ast.Attribute, ast.Name)) and getattr(n.func, "attr", getattr(n.func, "id", "")) == "factorize"
        for n in ast.walk(value))


def _codes_target(target: ast.expr) -> ast.expr:
    """``df[c], uniques = df[c].factorize()``: factorize returns the codes first (pandas API reference)."""
    return target.elts[0] if isinstance(target, (ast.Tuple, ast.List)) and target.elts else target


def code_columns(tree: ast.AST) -> frozenset[str]:
    """The source text of every assignment target whose value is category codes (``df[c] = df[c].cat.codes``,
    ``df[c], _ = df[c].factorize()``)."""
    return frozenset(ast.unparse(t) for n in walk_once(tree) if isinstance(n, ast.Assign) and _reads_codes(n.value)
                     for t in map(_codes_target, n.targets) if isinstance(t, (ast.Name, ast.Subscript, ast.Attribute)))


def rebases_codes(node: ast.Call, columns: frozenset[str]) -> bool:
    """``node`` is ``x.min()`` or ``x.max()`` of a column of codes (see the module docstring)."""
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr in _BOUNDS and not node.args and \
        ast.unparse(func.value) in columns


__all__ = ["code_columns", "rebases_codes"]
