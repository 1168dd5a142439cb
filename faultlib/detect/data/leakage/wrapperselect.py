"""A wrapper feature selector written in the project: a supervised fit of the rows it selects columns from.

A *wrapper* method chooses a subset of features by the score a learning algorithm gets with it (Kohavi & John,
"Wrappers for feature subset selection", Artificial Intelligence 97, 1997): recursive elimination, a forward
search, or a genetic algorithm whose fitness is a classifier's cross-validated score on each candidate subset.
Run over every sample before the evaluation's split or cross-validation, the subset was chosen with the held-out
labels: the selection bias of Ambroise & McLachlan ("Selection bias in gene extraction on the basis of
microarray gene-expression data", PNAS 99, 2002), the same leak as ``RFE(...).fit_transform(X, y)`` before the
CV (house: a supervised selector before the CV is tp).

scikit-learn's ``RFE``/``SequentialFeatureSelector`` are known by name. A project writes its own in a module of
its repository, shaped like them::

    class GeneticSelector:
        def __init__(self, estimator):       # holds a model, as RFE(estimator) does
            self.estimator = estimator
        def select_features(self, X, y):      # fits/cross-validates self.estimator on column subsets of X, y
            ...
            return X[:, best_mask]

    X_sel = GeneticSelector(estimator=SVC()).select_features(X, y)
    cross_val_score(clf, X_sel, y, cv=5)

:func:`wrapper_class` recognises such a class syntactically: its ``__init__`` takes a parameter named for a model
(``estimator``, ``model``, ``clf``, ``classifier``, ``learner``, ``base_estimator``) and stores it on ``self``,
and the class fits or cross-validates something (``.fit(``, ``cross_val_score``, ``cross_validate``, a
splitter's ``split``). A call of one of its methods whose name says it selects (``select*``, ``*support*``,
``fit_transform``, ``transform``) with the rows and the labels (two arguments or more) is then a supervised fit of
those rows (:class:`WrapperSelectors`): its result carries the fit, and the analysis' CV and split rules apply to
it as to ``RFE``. The same search written as a function (:func:`wrapper_function`: it fits, scores or
cross-validates a model on ``X[:, mask]`` of its parameter ``X`` with another parameter, the labels, and returns
``X[:, best_mask]``) is such a fit of the rows its call passes as ``X``. A class that holds no model (a filter by a
statistic), a function that scores no model on its columns, and a method given no labels, stay as they were.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.values import Data, Est, as_data, maybe_data
from faultlib.pyflow.values import ClassVal, Func, Instance

_MODEL_PARAMETERS = frozenset({"estimator", "model", "clf", "classifier", "learner", "base_estimator", "regressor"})
_FITS = frozenset({"fit", "cross_val_score", "cross_validate", "cross_val_predict", "split"})


def wrapper_class(node: Any) -> bool:
    """``node`` (a ``ClassDef``) holds a model given to ``__init__`` and fits or cross-validates (see above)."""
    if not isinstance(node, ast.ClassDef):
        return False
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return False
    params = {a.arg for a in [*init.args.args, *init.args.kwonlyargs]} & _MODEL_PARAMETERS
    stored = any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in params and any(
        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" for t in n.targets)
        for n in ast.walk(init))
    return stored and any(isinstance(n, ast.Call) and (call_name(n) in _FITS or call_name(n) in vocab.CV_FUNCTIONS)
                          for n in ast.walk(node))


def _column_subset_of(node: ast.expr, params: list[str]) -> int | None:
    """``P[:, m]`` / ``P.loc[:, m]`` / ``P.iloc[:, m]`` of a parameter ``P``: its index in ``params``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
            and isinstance(node.slice.elts[0], ast.Slice)):
        return None
    base = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr in ("loc", "iloc") \
        else node.value
    return params.index(base.id) if isinstance(base, ast.Name) and base.id in params else None


def wrapper_function(node: Any) -> int | None:
    """The position of the data parameter of a wrapper selection written as a function (see the module
    docstring): it scores or fits a model on column subsets of a parameter ``X`` together with another parameter
    (the labels) and returns a column subset of ``X``; ``None`` for any other function."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    scored: set[int] = set()
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        if not (call_name(call) in _FITS or call_name(call) in vocab.CV_FUNCTIONS or call_name(call) == "score"):
            continue
        values = [*call.args, *(k.value for k in call.keywords)]
        subsets = {i for v in values if (i := _column_subset_of(v, params)) is not None}
        labels = any(isinstance(v, ast.Name) and v.id in params for v in values)
        if subsets and labels:
            scored |= subsets
    returned = {i for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None
                and (i := _column_subset_of(n.value, params)) is not None}
    both = sorted(scored & returned)
    return both[0] if both else None


def selecting(method: str) -> bool:
    """A method name that says it selects columns (``select_genes``, ``get_support``, ``fit_transform``)."""
    tokens = set(vocab.name_tokens(method))
    return bool(tokens & {"select", "selection", "support"}) or method in ("fit_transform", "transform")


class WrapperSelectors:
    """Mixin of the analyzer: ``obj.select...(X, y)`` on an instance of a :func:`wrapper_class`; needs ``_fit``,
    ``_lookup`` and ``_expr``."""

    def _wrapper_function_call(self, node: ast.Call, name: str, out: Any, frame: Any) -> Any:
        """A call of a :func:`wrapper_function`: its result carries a supervised fit of the rows it was given."""
        fn = self._lookup(name, frame)  # type: ignore[attr-defined]
        at = wrapper_function(fn.node) if isinstance(fn, Func) else None
        if at is None or at >= len(node.args) or not isinstance(node.args[at], ast.Name):
            return out
        x = as_data(self._lookup(node.args[at].id, frame))  # type: ignore[attr-defined]
        if x is None:
            return out
        est = Est(f"{fn.qualname}()", "transformer", preprocessing=True, supervised=True)
        fit = self._fit(est, x, True, fn.qualname.rsplit(".", 1)[-1], node, frame)  # type: ignore[attr-defined]
        if fit is None:
            return out
        result = maybe_data(out)
        if result is not None and result.rows is not None:
            return result.with_(taints=result.taints | {fit})
        return Data(x.rows, x.taints | {fit}, x.test)

    def _selector_class(self, receiver: ast.expr, frame: Any) -> ClassVal | None:
        """The user class of ``receiver``: a name bound to its instance, or ``Cls(...)`` built in place (looked up,
        not called again)."""
        if isinstance(receiver, ast.Name):
            value = self._lookup(receiver.id, frame)  # type: ignore[attr-defined]
            return value.cls if isinstance(value, Instance) else None
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name):
            value = self._lookup(receiver.func.id, frame)  # type: ignore[attr-defined]
            return value if isinstance(value, ClassVal) else None
        return None

    def _call(self, node: ast.Call, frame: Any) -> Any:
        out = super()._call(node, frame)  # type: ignore[misc]
        func = node.func
        if isinstance(func, ast.Name) and len(node.args) >= 2:  # X_sel = evolve_subset(X, y, model)
            return self._wrapper_function_call(node, func.id, out, frame)
        if not (isinstance(func, ast.Attribute) and selecting(func.attr) and len(node.args) >= 2
                and all(isinstance(a, ast.Name) for a in node.args[:2])):
            return out
        cls = self._selector_class(func.value, frame)
        if cls is None or not wrapper_class(cls.node):
            return out
        x = as_data(self._lookup(node.args[0].id, frame))  # type: ignore[attr-defined]
        if x is None:  # (the second argument is the labels: a column popped from the table may be no Data here)
            return out
        est = Est(f"{cls.qualname}.{func.attr}", "transformer", preprocessing=True, supervised=True)
        fit = self._fit(est, x, True, func.attr, node, frame)  # type: ignore[attr-defined]
        if fit is None:
            return out
        result = maybe_data(out)
        if result is not None and result.rows is not None:
            return result.with_(taints=result.taints | {fit})
        if "support" in vocab.name_tokens(func.attr):
            return Data(None, frozenset({fit}))  # a mask of the chosen columns, carrying the fit
        return Data(x.rows, x.taints | {fit}, x.test)


__all__ = ["WrapperSelectors", "selecting", "wrapper_class", "wrapper_function"]
