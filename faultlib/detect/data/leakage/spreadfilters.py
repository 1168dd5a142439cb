"""Columns kept by their spread over the rows, written by hand: a variance filter, a fit of those rows.

``VarianceThreshold`` learns each column's variance from the rows it is fitted on and keeps the columns above a
threshold (scikit-learn user guide, 1.13.1 "Removing features with low variance"); fitted on every sample before a
cross-validation it is a fit outside the CV (house: VarianceThreshold before the CV is tp). Microarray and
descriptor code writes the same filter by hand::

    X = X.loc[:, X.var() > 0.5]                 # or X.std(), np.var(X, axis=0), np.ptp(X, axis=0)
    X = X.loc[:, X.max() - X.min() > 2]         # the range as the spread (a gene "varies" by at least 2 units)
    X = X[X.columns[X.std() > 0.1]]

The kept columns are chosen by a statistic of every row, the held-out folds' included; unsupervised filtering of
genes before a cross-validation is the milder cousin of the selection bias of Ambroise & McLachlan (PNAS 99, 2002)
and the feature selection whose "selection step must be inside the cross-validation" (Hastie, Tibshirani &
Friedman, The Elements of Statistical Learning, 2nd ed., 7.10.2). :func:`spread_filters` finds, syntactically,
a column index that compares such a spread **of the very table it indexes** against a threshold (``>``, ``>=``;
``!=`` for a non-zero spread); the analysis (:meth:`.static.Analyzer._subscript_value`) then records it as a fit
of the table's rows, as it records ``VarianceThreshold``. A range that chooses a dtype (``X.max() < 255``), a
column picked by its mean or by its name, and a filter of rows (``X.loc[X.var(axis=1) > t]``) stay as they were.
The spread may be bound to a name first, once in the module (``gene_vars = X.var(axis=0)`` then
``X.loc[:, gene_vars > gene_vars.quantile(0.10)]``: the genes above the tenth percentile of variance, issue 17 wave
86, a drug-response study).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: methods (and NumPy functions) whose value per column is a spread of the rows
_SPREADS = frozenset({"var", "std", "nanvar", "nanstd", "ptp", "mad", "sem", "iqr"})
_KEEPS = (ast.Gt, ast.GtE, ast.NotEq)


def _base(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _per_column(call: ast.Call) -> bool:
    """No ``axis=1`` (a per-row spread) among the keywords; NumPy's form needs ``axis=0``."""
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    return not (isinstance(axis, ast.Constant) and axis.value in (1, "columns"))


def _spread_of(node: ast.expr) -> tuple[str, ast.Call] | None:
    """``(table, call)`` when ``node`` is a per-column spread of ``table`` (see the module docstring)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SPREADS:
        if _base(node.func.value) and not node.args and _per_column(node):  # X.var(), X.std(ddof=1)
            return _base(node.func.value), node  # type: ignore[return-value]
        if isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy", "scipy", "stats") and \
                node.args and _base(node.args[0]) and any(k.arg == "axis" and isinstance(k.value, ast.Constant)
                                                          and k.value.value == 0 for k in node.keywords):
            return _base(node.args[0]), node  # type: ignore[return-value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):  # X.max() - X.min(): the range
        ends = []
        for side, attr in ((node.left, "max"), (node.right, "min")):
            if isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and side.func.attr == attr \
                    and _base(side.func.value) and not side.args and _per_column(side):
                ends.append((_base(side.func.value), side))
        if len(ends) == 2 and ends[0][0] == ends[1][0]:
            return ends[0][0], ends[0][1]  # type: ignore[return-value]
    return None


def _filter(index: ast.expr, table: str, once: dict[str, ast.expr] | None = None,
            constant: frozenset[int] = frozenset()) -> ast.Call | None:
    """``index`` keeps the columns of ``table`` whose spread passes a threshold: the spread's call (the spread may be
    a name bound once to it, ``once``)."""
    if isinstance(index, ast.Subscript) and isinstance(index.value, ast.Attribute) and \
            index.value.attr == "columns" and _base(index.value.value) == table:
        index = index.slice  # X.columns[X.var() > t]
    if not (isinstance(index, ast.Compare) and len(index.ops) == 1 and isinstance(index.ops[0], _KEEPS)) or \
            id(index) in constant:  # X.std() > 0: the constant columns go, nothing is learned (constancy.py)
        return None
    left = index.left
    if isinstance(left, ast.Name) and once and left.id in once:
        left = once[left.id]  # spreads = X.var(axis=0); X.loc[:, spreads > spreads.quantile(.1)]
    found = _spread_of(left)
    return found[1] if found is not None and found[0] == table else None


def _bound_once(tree: ast.Module) -> dict[str, ast.expr]:
    """Names assigned exactly once in the module (a plain ``name = value``), with their value."""
    seen: dict[str, list[ast.expr]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    seen.setdefault(t.id, []).append(n.value if len(n.targets) == 1 else t)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            seen.setdefault(n.target.id, []).extend([n.target, n.target])
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def spread_filters(tree: ast.Module, constant: frozenset[int] = frozenset()) -> dict[int, ast.Call]:
    """``{id(column index node): the spread's call}`` for every hand-written variance filter of ``tree``; the
    comparisons in ``constant`` (:func:`~faultlib.detect.data.leakage.constancy.constancy_tests`: a zero spread)
    filter nothing by the rows."""
    out: dict[int, ast.Call] = {}
    once: dict[str, ast.expr] | None = None
    for node in walk_once(tree):
        if not isinstance(node, ast.Subscript):
            continue
        once = _bound_once(tree) if once is None else once
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "loc" and _base(value.value) and isinstance(
                node.slice, ast.Tuple) and len(node.slice.elts) == 2:  # X.loc[:, X.var() > t]
            call = _filter(node.slice.elts[1], value.value.id, once, constant)  # type: ignore[attr-defined]
            if call is not None:
                out[id(node.slice.elts[1])] = call
        elif _base(value) and isinstance(node.slice, ast.Subscript):  # X[X.columns[X.var() > t]]
            call = _filter(node.slice, value.id, once, constant)  # type: ignore[attr-defined]
            if call is not None:
                out[id(node.slice)] = call
    return out


__all__ = ["spread_filters"]
