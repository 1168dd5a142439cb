"""Which rows a polars frame call keeps, for the static leakage analysis.

pandas and polars share method names that do different things to the rows:

* ``DataFrame.filter`` in polars keeps the rows where a predicate holds (polars API reference,
  "DataFrame.filter": "Filter rows, retaining those that match the given predicate expression(s)"), as a boolean
  mask does in pandas (``df[df['year'] >= 2000]``, pandas user guide, "Boolean indexing"); pandas'
  ``DataFrame.filter(items=..., like=..., regex=...)`` picks columns by their labels and keeps every row. So
  ``test = stack.filter(pl.col("price").is_null())`` is a selection of ``stack``'s rows, not the whole of them:
  before, the whole training table named ``test`` made every earlier fit on it a fit on held-out rows (issue 17,
  a SIGNATE polars project). Read as a row selection only when each predicate is a polars expression
  (``pl.col(...)`` ...) or a boolean mask written as a comparison, a logical combination or a mask method
  (``df['a'] > 0``, ``s.is_null()``), or a name bound only to such predicates; a list of names, a string or
  keywords stay pandas' column pick. A membership filter of a stack's own keys
  (``filter(pl.col('day').is_in(train['day']))``) is decided first by :mod:`.memberparts`, and the selection goes
  through the same path as a pandas mask (:mod:`.masks`, a stack's marked parts, :mod:`.labelgaps`).
* ``pl.concat(items, how="horizontal")`` puts the frames side by side (polars API reference, "concat": "horizontal:
  stacks Series from DataFrames horizontally"), like ``pd.concat(..., axis=1)``: the rows of the first frame with
  more columns, not a stack of rows (:func:`side_by_side`).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Const

#: ``pl.concat(how=...)`` strategies that join columns, not rows (polars API reference, "concat")
_COLUMN_STRATEGIES = frozenset({"horizontal", "align_horizontal"})
#: methods that give a boolean value per row (pandas ``isna``..., polars ``is_null``...)
_MASK_METHODS = frozenset({"isna", "isnull", "notna", "notnull", "isin", "between", "duplicated", "is_null",
                           "is_not_null", "is_nan", "is_not_nan", "is_in", "is_between", "is_duplicated", "is_unique",
                           "is_first_distinct", "is_last_distinct", "contains", "starts_with", "ends_with"})


def side_by_side(kwargs: dict[str, Any]) -> bool:
    """``pl.concat([...], how="horizontal")``: the frames are joined column by column (the module docstring)."""
    how = kwargs.get("how")
    return isinstance(how, Const) and how.value in _COLUMN_STRATEGIES


def _polars_expr(node: ast.expr) -> bool:
    """``pl.col("x")...``, ``polars.lit(1)``: an expression built from the polars module somewhere inside."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("pl", "polars")
               for n in ast.walk(node))


def row_predicate(node: ast.expr, bindings: dict[str, list[ast.expr]] | None = None) -> bool:
    """``node`` is a predicate that keeps some rows: a polars expression, or a boolean mask written as a comparison,
    a negation, a logical combination or a mask method (``df['a'] > 0``, ``~s.is_null()``, ``a & b``); with
    ``bindings``, a name bound only to such predicates (``recent = pl.col('year') >= 2020``; ``~recent``)."""
    if isinstance(node, ast.Name):
        bound = (bindings or {}).get(node.id, ())
        return bool(bound) and all(row_predicate(b) for b in bound)
    if _polars_expr(node) or isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return row_predicate(node.operand, bindings)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return row_predicate(node.left, bindings) or row_predicate(node.right, bindings)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MASK_METHODS


class PolarsRows:
    """``frame.filter(predicate)``: the rows the predicate keeps (see the module docstring). A mixin of
    :class:`faultlib.detect.data.leakage.static.Analyzer` placed after :class:`.memberparts.MemberParts` (it needs
    ``_subscript_rows``, the path of ``frame[mask]``)."""

    def _frame_method(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import MaybeData, as_data, maybe_data

        bindings = self._bindings  # type: ignore[attr-defined]
        if name == "filter" and node.args and not node.keywords and all(row_predicate(a, bindings) for a in node.args):
            # (a table read from a file is data once a polars predicate keeps rows of it: pl.read_csv(p).filter(...);
            # only then: any other method of an unknown value says nothing of it, dp.in_sample() of a statsmodels
            # process, session.query(User).filter(User.age > 3) of an ORM)
            polars = isinstance(receiver, MaybeData) and any(_polars_expr(a) for a in node.args)
            data = as_data(receiver) if polars else maybe_data(receiver)
            if data is not None and data.rows is not None:
                for predicate, value in zip(node.args, args):  # filter(a, b): where both hold, one after the other
                    data = self._kept_rows(data, predicate, value, node.lineno, frame)
                return data
        return super()._frame_method(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _kept_rows(self, data: Any, predicate: ast.expr, value: Any, line: int, frame: Any) -> Any:
        """The rows of ``data`` the ``predicate`` (evaluated to ``value``) keeps: a part of a stack picked back
        (:mod:`.memberparts`, :mod:`.partflags`, :mod:`.labelgaps`), or a row selection as ``data[mask]`` makes
        (:mod:`.masks`, :mod:`.foldcols`), with the fits of a cut at a statistic (:mod:`.outliers`)."""
        from faultlib.detect.data.leakage.values import data_rows_child

        picked = self._stack_part(data, predicate, frame)  # type: ignore[attr-defined]
        if picked is not None:
            return picked
        step = self._fold_column_step(predicate, line) or self._filter_step(predicate, line)  # type: ignore[attr-defined]
        return self._derive(data, data_rows_child(data, step), line,  # type: ignore[attr-defined]
                            taints=self._mask_bounds(value))  # type: ignore[attr-defined]

__all__ = ["PolarsRows", "row_predicate", "side_by_side"]
