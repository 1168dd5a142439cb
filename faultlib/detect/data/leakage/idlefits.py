"""A project's transformer whose ``fit`` learns nothing from the rows, for the static leakage analysis.

Feature-engineering code wraps column arithmetic in scikit-learn transformers so that it can sit in a
``Pipeline``; most of them keep nothing from the rows they are fitted on::

    class SpeedBands(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            return self                                    # nothing learnt
        def transform(self, X):
            return X.assign(kmh=X["km"] / X["hours"])

    class LevelCodes(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            levels = sorted(X["traffic"].dropna().unique())
            self.codes_ = {lev: i for i, lev in enumerate(levels)}    # a relabelling of the levels seen
            return self

scikit-learn's estimator contract puts what ``fit`` learns into attributes of ``self`` ("Developing scikit-learn
estimators": "attributes that have been estimated from the data must always have a name ending with trailing
underscore"). A ``fit`` that stores nothing computed from its rows, or only the set of their distinct levels (a
relabelling, the house's reading of a label encoding: no statistic of the values), learns nothing a held-out row
could leak into; a pipeline of such steps fitted before a split or a cross-validation is no fit before them. Issue
17, wave 102 (a food-delivery notebook's four custom transformers, fitted before ``RandomizedSearchCV``): reported as
``fit_outside_cv``.

:func:`idle_fit` reads the class's ``fit`` (syntax only). It learns nothing when every write to ``self`` and every
call in it reads its data parameters (and the locals computed from them) only as:

* their column labels or shape (``X.columns``, ``X.shape``, ``X.dtypes``);
* their distinct levels (``X[c].unique()``, ``np.unique(X[c])``, ``X[c].drop_duplicates()``), and what a sort,
  ``set``/``list``/``enumerate`` or a comprehension builds from those levels.

A ``fit`` that calls anything else on the rows (``self.scaler.fit(X)``, ``X.mean()``, ``X[c].quantile(...)``) or a
class that writes its own ``fit_transform`` keeps the old reading: a transformer that learns. So does a ``fit`` that
loops over its rows (``for counts in X: total.update(counts)``): the loop variable is a row, and what is built from
it (a vocabulary of the most common words) a statistic of the values. Not a loop whose variable indexes the table it
walks (``for c in X: if X[c].dtype == object: ...``): a pandas table yields its column names.

A ``transform`` can learn too: a step whose ``fit`` is ``return self`` but whose ``transform`` fits an estimator on the
rows it is given (``SimpleImputer().fit_transform(X)``, ``self.encoder.fit(X, y)``) or computes a statistic of them
(``X[c].mean()``, ``pd.get_dummies(X)``: the category set) refits on every call, so ``pipe.fit_transform(X)`` learns
from ``X`` all the same (:func:`learning_transform`). A statistic across each row's columns (``X[cols].mean(axis=1)``,
pandas' ``axis=1``/``axis='columns'``) reads one row at a time and learns nothing from the others. Stop 57 (an
imputing pipeline, a target encoder and a feature-engineering step of public notebooks, all with an empty ``fit``):
read as idle, their fits before a split or a cross-validation went silent.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.columnfilters import _columns_axis
from faultlib.detect.data.leakage.pairreturns import OPTION as TUPLE_RETURNS, tuple_roles
from faultlib.detect.data.leakage.values import Est

#: what a table gives without its values: labels, shape, types
_LABELS = frozenset({"columns", "shape", "dtypes", "ndim", "feature_names_in_"})
#: calls that give the distinct levels of what they read
_LEVELS = frozenset({"unique", "drop_duplicates"})
#: calls that keep a set of levels a set of levels (a sort, a container, a numbering)
_KEEPS_LEVELS = frozenset({"sorted", "set", "list", "tuple", "enumerate", "dropna", "tolist", "astype", "len"})
_TRANSFORMER_BASES = frozenset({"TransformerMixin", "SelectorMixin", "OneToOneFeatureMixin"})


def _callee(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


class _Reads:
    """Which names of a fit's rows an expression reads, other than as labels or levels."""

    def __init__(self, rows: set[str]):
        self.rows = rows  # the data parameters and the locals computed from them as values
        self.levels: set[str] = set()  # locals holding distinct levels

    def values(self, node: ast.AST) -> bool:
        """``node`` reads row values: a row name, outside a labels read and a levels call."""
        if isinstance(node, ast.Attribute) and node.attr in _LABELS:
            return False
        if isinstance(node, ast.Call) and _callee(node) in _LEVELS:
            return False  # X[c].unique(): the levels, not the values
        if isinstance(node, ast.Name):
            return node.id in self.rows
        return any(self.values(c) for c in ast.iter_child_nodes(node))

    def levels_only(self, node: ast.AST) -> bool:
        """``node`` reads rows only as levels (``sorted(X[c].dropna().unique())``, a local holding them)."""
        reads = False
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and _callee(n) in _LEVELS:
                reads = True
            elif isinstance(n, ast.Name) and n.id in self.levels:
                reads = True
        return reads and not self.values(node)


def _params(fn: ast.FunctionDef) -> set[str]:
    return {a.arg for a in [*fn.args.posonlyargs, *fn.args.args[1:], *fn.args.kwonlyargs]}


def _self_write(target: ast.expr) -> bool:
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


#: calls that fit an estimator on the rows they are given
_FITS = frozenset({"fit", "fit_transform", "fit_predict", "fit_resample"})
#: statistics of the rows a transform may compute on every call (besides vocab.STATISTICS)
_ROW_STATISTICS = frozenset({"get_dummies", "value_counts", "nunique"})


def learning_transform(fn: ast.FunctionDef) -> bool:
    """``fn`` (a class's ``transform``) fits an estimator on its rows or computes a statistic of them (a method of
    them or of a value computed from them, or a library function given them): see the module docstring."""
    reads = _Reads(_params(fn))
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and reads.values(node.value):
            reads.rows |= {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = node.func.attr
        args = [*node.args, *(k.value for k in node.keywords)]
        if name in _FITS and any(reads.values(a) for a in args):
            return True  # SimpleImputer().fit_transform(X[num]), self.encoder.fit(X[cols], y)
        if name in vocab.STATISTICS | _ROW_STATISTICS and not _columns_axis(node) and (reads.values(
                node.func.value) or any(reads.values(a) for a in args)):
            return True  # X[c].mean(), np.median(X[c]), pd.get_dummies(X[cols])
    return False


def _column_keys(loop: ast.For | ast.comprehension) -> set[str]:
    """The loop variables of ``for c in X:`` that index the table looped over inside the loop (``X[c]``): iterating
    a pandas ``DataFrame`` yields its column labels (pandas API, ``DataFrame.__iter__``: "iterate over info axis"),
    so ``c`` is a column's name, not a row."""
    tables = {n.id for n in ast.walk(loop.iter) if isinstance(n, ast.Name)}
    inside = loop.body if isinstance(loop, ast.For) else loop.ifs
    return {n.slice.id for part in inside for n in ast.walk(part) if isinstance(n, ast.Subscript) and isinstance(
        n.value, ast.Name) and n.value.id in tables and isinstance(n.slice, ast.Name)}


def idle_fit(fn: ast.FunctionDef) -> bool:
    """``fn`` (a class's ``fit``) learns nothing from its rows (see the module docstring)."""
    reads = _Reads(_params(fn))
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.comprehension)) and reads.values(node.iter):
            looped = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}  # for row in X: a row
            reads.rows |= looped - _column_keys(node)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if reads.values(node.value):
                if any(_self_write(t) for t in targets):
                    return False  # self.means_ = X.mean(): learnt from the values
                reads.rows |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif reads.levels_only(node.value):
                reads.levels |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Call) and _callee(node) not in _KEEPS_LEVELS and \
                any(reads.values(a) or reads.levels_only(a) for a in [*node.args, *(k.value for k in node.keywords)]):
            return False  # self.scaler.fit(X), setattr(self, 'm', X.mean()), helper(X), max(levels)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                _callee(node) not in _LEVELS | _KEEPS_LEVELS and \
                (reads.values(node.func.value) or reads.levels_only(node.func.value)):
            return False  # X.mean(), X[c].quantile(0.9), X[c].unique().max(): a statistic of the values
    return True


class IdleFits:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: a project's transformer whose ``fit``
    learns nothing is an estimator that does not preprocess (see the module docstring)."""

    def _class_value(self, cls: Any) -> Any:
        fit, transform = cls.methods.get("fit"), cls.methods.get("transform")
        transformer = bool(_TRANSFORMER_BASES & cls.bases) or {"fit", "transform"} <= set(cls.methods)
        if transformer and fit is not None and "fit_transform" not in cls.methods and \
                isinstance(fit.node, ast.FunctionDef) and idle_fit(fit.node) and not (
                isinstance(getattr(transform, "node", None), ast.FunctionDef) and learning_transform(transform.node)):
            return Est(cls.node.name, "transformer", preprocessing=False,
                       options={TUPLE_RETURNS: tuple_roles(cls.methods)})
        return super()._class_value(cls)  # type: ignore[misc]


__all__ = ["IdleFits", "idle_fit", "learning_transform"]
