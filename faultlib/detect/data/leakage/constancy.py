"""Tests that ask whether a column is constant, for the static leakage analysis.

Cleaning code drops the columns that hold one value over all the rows before anything is split::

    for col in df.columns:
        if df[col].nunique() == 1:                 # or <= 1, < 2; polars n_unique(); len(df[col].unique())
            df.drop(col, axis=1, inplace=True)
    flat = [c for c in X.columns if X[c].nunique() <= 1]
    X = X.loc[:, X.std() > 0]                      # or var() != 0, X[c].min() == X[c].max()
    X = VarianceThreshold().fit_transform(X)       # threshold=0.0, the default: "removes all zero-variance features"

A column constant over every row is constant over every training part cut from them, so no model fitted on a
training part can use it, and dropping it brings nothing of the held-out rows into the model. A column that varies
only among the held-out rows is constant in training, where the model cannot use it either: the test rows cannot
change the selection in a way that helps the score (scikit-learn user guide 1.13.1, "Removing features with low
variance": ``VarianceThreshold`` at its default threshold "removes all zero-variance features, i.e. features that
have the same value in all samples"). Judged false alarms at stop 53 (a bankruptcy notebook's constant columns
before ``train_test_split``, an airline's ``nunique()==1`` loop, a one-valued dummy column; wave 70's
``VarianceThreshold`` at 0.0).

:func:`constancy_tests` finds those comparisons syntactically: a count of distinct values against a threshold that
puts one value on one side and two or more on the other, or a spread (``std``, ``var``, ``ptp``, ``max - min``,
``max == min``) against a threshold that puts zero on one side and every real spread on the other. The guarded
drops (:mod:`.guardeddrops`), column comprehensions (:mod:`.columnfilters`) and spread filters
(:mod:`.spreadfilters`) leave them out; any other statistic (a missing share over 0.5, a correlation with the
target, a variance over 0.3, many distinct values) stays the fit it was. :func:`zero_variance_selector` tells a
``VarianceThreshold`` at threshold 0 from one that learns a cut.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from faultlib.pyflow.values import Const
from faultlib.pyflow.walk import scope_nodes, walk_once

__all__ = ["constancy_tests", "zero_variance_selector"]

#: counts of distinct values (pandas ``nunique``, polars ``n_unique``)
_DISTINCT = frozenset({"nunique", "n_unique"})
#: spreads that are zero exactly on a constant column
_SPREADS = frozenset({"std", "var", "nanstd", "nanvar", "ptp", "mad", "iqr"})
_OPS: dict[type, Any] = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                         ast.Gt: operator.gt, ast.GtE: operator.ge}
#: counts of distinct values tried: a constant column has 1, any other 2 or more
_COUNTS_TRIED = (1, 2, 3, 5, 10, 1000)
#: spreads tried: a constant column has 0, a varying one anything above (1e-6 and up: a threshold below it is a
#: guard against rounding, not a cut of the distribution)
_SPREADS_TRIED = (0.0, 1e-6, 0.01, 0.5, 1.0, 100.0)


def _method(node: ast.expr, names: frozenset[str]) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names


def _distinct_count(node: ast.expr) -> bool:
    """``x.nunique()``, ``x.n_unique()``, ``len(x.unique())``, ``len(set(x))``, ``len(x.value_counts())``."""
    if _method(node, _DISTINCT):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        inner = node.args[0]
        return _method(inner, frozenset({"unique", "value_counts", "drop_duplicates"})) or isinstance(
            inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in ("set", "frozenset")
    return False


def _spread(node: ast.expr) -> bool:
    """``x.std()``, ``np.var(x)``, ``x.max() - x.min()`` (the range)."""
    if _method(node, _SPREADS) and not any(k.arg == "axis" and isinstance(k.value, ast.Constant) and
                                           k.value.value in (1, "columns") for k in node.keywords):  # type: ignore[union-attr]
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _method(
        node.left, frozenset({"max"})) and _method(node.right, frozenset({"min"}))


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _splits(op: ast.cmpop, quantity_left: bool, threshold: float, tried: tuple[float, ...]) -> bool:
    """The test ``quantity op threshold`` (or ``threshold op quantity``) is true for the first tried value alone or
    for every tried value but the first: it tells the constant column from the others and nothing more."""
    fn = _OPS.get(type(op))
    if fn is None:
        return False
    truths = [fn(v, threshold) if quantity_left else fn(threshold, v) for v in tried]
    return len(set(truths[1:])) == 1 and truths[0] != truths[1]


def _resolved(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    return bound.get(node.id, node) if isinstance(node, ast.Name) else node


def _ends_meet(compare: ast.Compare) -> bool:
    """``x.min() == x.max()`` / ``x.max() != x.min()``: the range is zero."""
    sides = (compare.left, compare.comparators[0])
    return isinstance(compare.ops[0], (ast.Eq, ast.NotEq)) and {
        s.func.attr for s in sides if _method(s, frozenset({"min", "max"}))} == {"min", "max"} and all(  # type: ignore[union-attr]
        _method(s, frozenset({"min", "max"})) and ast.dump(s.func.value) == ast.dump(sides[0].func.value)  # type: ignore[union-attr]
        for s in sides)


def _constancy(compare: ast.Compare, bound: dict[str, ast.expr]) -> bool:
    """One comparison asks whether a column is constant (see the module docstring)."""
    if len(compare.ops) != 1:
        return False
    if _ends_meet(compare):
        return True
    left, right = _resolved(compare.left, bound), _resolved(compare.comparators[0], bound)
    for quantity, other, quantity_left in ((left, right, True), (right, left, False)):
        threshold = _number(other)
        if threshold is None:
            continue
        if _distinct_count(quantity) and _splits(compare.ops[0], quantity_left, threshold, _COUNTS_TRIED):
            return True
        if _spread(quantity) and _splits(compare.ops[0], quantity_left, threshold, _SPREADS_TRIED):
            return True
    return False


def _scope_bindings(nodes: list[ast.AST]) -> dict[str, ast.expr]:
    """Names bound exactly once among ``nodes`` (one scope's) by a plain ``name = value``."""
    seen: dict[str, list[ast.expr]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    seen.setdefault(target.id, []).append(node.value if len(node.targets) == 1 else target)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, []).extend([node.target, node.target])
    return {name: values[0] for name, values in seen.items() if len(values) == 1}


def constancy_tests(tree: ast.Module) -> frozenset[int]:
    """Ids of the comparisons of ``tree`` that ask whether a column is constant: ``x.nunique() <= 1``,
    ``len(x.unique()) == 1``, ``x.std() == 0``, ``x.var() > 0``, ``x.min() == x.max()``, or ``n < 2`` with ``n``
    bound once in the same function to such a count."""
    out: set[int] = set()
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = scope_nodes(scope)
        compares = [n for n in nodes if isinstance(n, ast.Compare)]
        if compares:
            bound = _scope_bindings(nodes)
            out.update(id(c) for c in compares if _constancy(c, bound))
    return frozenset(out)


def zero_variance_selector(name: str, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """``VarianceThreshold()`` / ``VarianceThreshold(0)`` / ``VarianceThreshold(threshold=0.0)``: drops only the
    columns constant over the rows it is fitted on (a threshold below 1e-6 counts as zero)."""
    if name != "VarianceThreshold":
        return False
    threshold = args[0] if args else kwargs.get("threshold")
    if threshold is None:
        return True
    return isinstance(threshold, Const) and isinstance(threshold.value, (int, float)) and \
        not isinstance(threshold.value, bool) and 0 <= threshold.value < 1e-6
