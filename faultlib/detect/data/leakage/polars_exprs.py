"""Polars expressions for the static leakage analysis: a statistic inside an expression is a fit of the frame the
expression runs on.

In polars a statistic is written as an expression first and evaluated later, on the frame it is given to
(polars user guide, "Expressions" and "Contexts": ``select``, ``with_columns``, ``filter``, ``group_by().agg``)::

    df.with_columns(pl.col("km").fill_null(pl.col("km").median()))   # the median of df's rows
    train.group_by("maker").agg(pl.mean("price"))                     # a target mean per maker over train's rows

So ``pl.col(...)``/``pl.mean(...)`` give a :class:`PlExpr` (no rows yet); a reduction on it (``mean``,
``median``, ``std``, ``quantile``..., the names of :data:`~faultlib.detect.data.leakage.vocab.STATISTICS`) or a
``fill_null(strategy="mean")`` records the call that reduces; any other method keeps the statistic of its
receiver or arguments (``.alias()``, ``.over()``, ``.fill_null(expr)``), and so does arithmetic on expressions
(``(pl.col("bid").median() + pl.col("ask").median()).alias("mid")``, :func:`combined_expr`; issue 17 wave 87: per-stock
statistics of an Optiver project, each the sum of two medians), while a comparison is a mask, as for pandas. A frame method of an expression
context then turns each recorded statistic into a hand-written fit of that frame's rows, at the line of the
reduction: the same finding as pandas' ``df['km'].fillna(df['km'].median())``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.values import Const, Tup

#: polars functions that start an expression (polars API reference, "Functions")
_STARTS = frozenset({"col", "all", "exclude", "lit", "first", "last", "when", "struct", "concat_str", "coalesce",
                     "sum_horizontal", "mean_horizontal", "max_horizontal", "min_horizontal", "len", "count"})
#: frame methods whose expressions are evaluated on the frame's rows (polars "Contexts")
CONTEXTS = frozenset({"with_columns", "with_column", "select", "agg", "filter", "fill_null", "fill_nan"})
#: ``fill_null(strategy=...)`` strategies that are statistics of the rows
_STAT_STRATEGIES = frozenset({"mean", "min", "max"})


@dataclass(frozen=True)
class PlExpr:
    """A polars expression; ``stat`` is the call that reduces rows inside it (``None`` if none does)."""

    stat: ast.Call | None = None


def stats_in(values: list[Any]) -> list[ast.Call]:
    """The reducing calls of the expressions among ``values`` (lists and tuples of expressions included)."""
    out: list[ast.Call] = []
    for value in values:
        if isinstance(value, Tup):
            out.extend(stats_in(list(value.items)))
        elif isinstance(value, PlExpr) and value.stat is not None and value.stat not in out:
            out.append(value.stat)
    return out


def _strategy(kwargs: dict[str, Any]) -> bool:
    value = kwargs.get("strategy")
    return isinstance(value, Const) and value.value in _STAT_STRATEGIES


def library_expr(module: str, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> PlExpr | None:
    """``pl.col("x")`` / ``pl.mean("y")`` / ``pl.lit(0)``: an expression; ``None`` for any other call."""
    if module.split(".")[0] not in ("polars", "pl"):
        return None
    if name in vocab.STATISTICS:
        return PlExpr(node)
    if name in _STARTS:
        found = stats_in([*args, *kwargs.values()])
        return PlExpr(found[0] if found else None)
    return None


def method_expr(receiver: PlExpr, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> PlExpr:
    """A method of an expression: a reduction records ``node``; any other keeps what its parts reduce."""
    if name in vocab.STATISTICS or name == "fill_null" and _strategy(kwargs):
        return PlExpr(node)
    found = stats_in([receiver, *args, *kwargs.values()])
    return PlExpr(found[0] if found else None)


def combined_expr(values: list[Any]) -> PlExpr | None:
    """``pl.col("a").median() + pl.col("b").median()``, ``-pl.col("x").std()``: arithmetic on expressions is an
    expression that keeps the statistics of its operands (the first one recorded); ``None`` when no operand is an
    expression."""
    if not any(isinstance(v, PlExpr) for v in values):
        return None
    found = stats_in(values)
    return PlExpr(found[0] if found else None)


def context_stats(name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> list[ast.Call]:
    """The reductions a frame method evaluates on the frame's rows (``df.fill_null(strategy="mean")`` is one)."""
    if name not in CONTEXTS:
        return []
    found = stats_in([*args, *kwargs.values()])
    if name == "fill_null" and _strategy(kwargs):
        found.append(node)
    return found
