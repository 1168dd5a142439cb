"""Columns kept under a test on a statistic of each, written as one comprehension, for the static leakage analysis.

A list of a frame's column names is names, not rows (:mod:`.namelists`): ``[c for c in df.columns if
df[c].dtype == object]`` selects no row and computes nothing from them. Its test may compute something, though::

    to_drop = [c for c in df.columns if df[c].isnull().mean() > 0.5]
    df.drop(columns=to_drop, inplace=True)

The share of missing values of each column over every row decides which columns the model gets, the statistic
``share = df.isnull().mean(); df.drop(columns=share[share > .5].index)`` computes in two lines and the analysis
reads as a fit on those rows (house: a missing-share column filter before the split, waves 71 and 86). Written as
a comprehension its statistic was lost with the condition (issue 17 wave 88: a Home Credit cleaning script dropped
the columns over 50% missing this way before the file a training script splits was written).

:class:`ColumnFilters` evaluates the comprehension's tests with its name bound to some column of the frame, and
the list carries the fits those tests computed: a value without rows, as the names a fitted selector chose do. A
test that computes nothing (a dtype, a name pattern, membership in a typed list) leaves the plain list of names.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.values import Const, Tup


def _column_loop(node: ast.expr) -> bool:
    """``[c for c in df.columns if ...]`` (one ``for`` over a frame's ``columns``, with a test)."""
    from faultlib.detect.data.leakage.frames import _names_columns

    return isinstance(node, ast.ListComp) and len(node.generators) == 1 and bool(node.generators[0].ifs) and \
        _names_columns(node)


def _operands(tests: list[ast.expr], constant: frozenset[int] = frozenset()) -> list[ast.expr]:
    """What the tests compare (``df[c].isnull().mean()`` and ``0.5`` in ``df[c].isnull().mean() > 0.5``), through
    ``and``/``or``/``not``: a comparison makes a flag of its operands, which keeps no statistic (static.py). A
    comparison in ``constant`` (``df[c].nunique() <= 1``: :mod:`.constancy`) computes nothing the rows teach."""
    out: list[ast.expr] = []
    for test in tests:
        if id(test) in constant:
            continue
        if isinstance(test, ast.BoolOp):
            out.extend(_operands(test.values, constant))
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            out.extend(_operands([test.operand], constant))
        elif isinstance(test, ast.Compare):
            out.extend([test.left, *test.comparators])
        else:
            out.append(test)
    return out


def _columns_axis(node: ast.Call) -> bool:
    """``axis=1`` / ``axis='columns'`` (also positional: ``dropna(1, thresh=...)``)."""
    axis = next((k.value for k in node.keywords if k.arg == "axis"), node.args[0] if node.args else None)
    return isinstance(axis, ast.Constant) and axis.value in (1, "columns")


def missing_count_drop(node: ast.expr | None) -> bool:
    """``df.dropna(thresh=k, axis=1)``: the columns kept by their count of non-missing values over the rows."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dropna" and \
        any(k.arg == "thresh" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
            for k in node.keywords) and _columns_axis(node)


class ColumnFilters:
    """The fits a column comprehension's tests computed (a mixin of the analyzer, ahead of the frame semantics)."""

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        if _column_loop(node):
            taints = self._filter_fits(node, frame)  # type: ignore[arg-type]
            if taints:
                return Data(None, taints, False)
        if missing_count_drop(node):
            return self._counted_drop(node, frame)  # type: ignore[arg-type]
        return super()._expr(node, frame)  # type: ignore[misc]

    def _counted_drop(self, node: ast.Call, frame: Any) -> Any:
        """``df.dropna(thresh=k, axis=1)`` evaluated as pandas does, its rows carrying the count as a fit (a
        statistic of them, :meth:`DesignChecks._statistic`); ``inplace=True`` rebinds the frame so."""
        out = super()._expr(node, frame)  # type: ignore[misc]
        inplace = any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True
                      for k in node.keywords)
        data = maybe_data(self._expr(node.func.value, frame) if inplace else out)  # type: ignore[attr-defined]
        if data is None or inplace and not isinstance(node.func.value, (ast.Name, ast.Attribute)):
            return out
        kept = self._statistic(data, f"{ast.unparse(node.func)}()", node, frame,  # type: ignore[attr-defined]
                               per_row=True)
        if inplace:
            self._rebind_base(node.func.value, kept, frame)  # type: ignore[attr-defined]
            return out
        return kept

    def _filter_fits(self, node: ast.ListComp, frame: Any) -> frozenset:
        gen = node.generators[0]
        names = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        saved = {n: frame.locals[n] for n in names if n in frame.locals}
        taints: set = set()
        try:
            source = self._expr(gen.iter, frame)
            known = source.items if isinstance(source, Tup) else ()
            column = known[0] if known and isinstance(known[0], Const) else Const("<column>")
            self._bind(gen.target, column, frame, node.lineno)  # some column of the frame
            for operand in _operands(gen.ifs, self._constancy):  # type: ignore[attr-defined]
                data = maybe_data(self._expr(operand, frame))
                if data is not None:
                    taints |= data.taints
        finally:
            for n in names:
                frame.locals.pop(n, None)
            frame.locals.update(saved)
        return frozenset(taints)


__all__ = ["ColumnFilters", "missing_count_drop"]
