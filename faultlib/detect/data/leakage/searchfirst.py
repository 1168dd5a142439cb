"""A search run on every row before the rows are split, its choice then scored on the test part (``trained_on_test``).

:mod:`.scoring` reports a search (``GridSearchCV``, ``RandomizedSearchCV``) fitted on rows that hold a part an
earlier split set aside. Forecasting notebooks often search first, on the whole series, and split afterwards::

    grid = GridSearchCV(RandomForestRegressor(), {"max_depth": [5, 10, None], "n_estimators": [100, 200]},
                        cv=TimeSeriesSplit(5))
    grid.fit(X, y)                                   # every hour, the last 20% too
    cut = int(0.8 * len(X))
    X_train, X_test, y_train, y_test = X[:cut], X[cut:], y[:cut], y[cut:]
    rf = RandomForestRegressor(max_depth=None, n_estimators=200)   # the values the search printed, typed in
    rf.fit(X_train, y_train)
    print(mean_absolute_error(y_test, rf.predict(X_test)))

The search's folds held the test hours out of each fit, but they were validation folds of the search: the
hyperparameters kept are those that scored best on them, the test hours among them, so the test score of the
model built with them is optimistic (ASE'22's *overlap leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data
leakage in notebooks: static detection and better processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010). Issue 17
wave 85: an hourly load notebook whose forest is tuned by ``TimeSeriesSplit`` over every hour and scored on the
last fifth.

Reported at the search's fit when (1) the search was fitted on the rows themselves, no part a split made of them
(a notebook may have split them before for another model; the split after the search is then another one), (2) a
model later scores rows held out by a split of those rows (a test part by its split or its name), and (3) that model
is the search's choice: the search itself or its ``best_estimator_`` refitted (the estimator keeps the search it
came from, whoever holds it later: a second search's best is not this one's), a model built from its
``best_params_``, or a model of the searched class whose constructor sets by keyword a hyperparameter the grid varied
(the value read off the search and typed in; a model of that class left at its defaults, or set only in parameters
the grid never tried, is another model and stays silent). A search fitted on exactly the rows it then scores (a
``cv='prefit'`` calibrator fitted and scored on the validation block of a three-way split, issue 17 wave 101) was
not fitted before a split of them: whether that score is a held-out one is :mod:`.testlabels`' question.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import (
    Data,
    Est,
    as_data,
    covers,
    parts,
    test_step,
)

__all__ = ["SearchesBeforeSplits"]


def _grid(node: ast.Call) -> ast.expr | None:
    if len(node.args) > 1:
        return node.args[1]
    return next((k.value for k in node.keywords if k.arg in ("param_grid", "param_distributions")), None)


def _keys(expr: ast.expr | None, bindings: dict[str, list[ast.expr]], line: int, depth: int = 2) -> frozenset[str]:
    """The hyperparameter names a grid literal (a dict, or a list of dicts; a name's latest binding before ``line``)
    varies; ``model__max_depth`` counts as ``max_depth``."""
    if isinstance(expr, ast.Name) and depth > 0:
        before = [b for b in bindings.get(expr.id, ()) if b.lineno < line]
        return _keys(max(before, key=lambda b: b.lineno), bindings, line, depth - 1) if before else frozenset()
    if isinstance(expr, (ast.List, ast.Tuple)):
        return frozenset().union(*(_keys(e, bindings, line, depth) for e in expr.elts))
    if isinstance(expr, ast.Dict):
        return frozenset(k.value.rsplit("__", 1)[-1] for k in expr.keys
                         if isinstance(k, ast.Constant) and isinstance(k.value, str))
    return frozenset()


class SearchesBeforeSplits:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring); it needs
    ``_bindings``, ``_emit``, ``_reached``, ``_search_choice_of`` (:mod:`.rescored`) and ``tree``."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        out = super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]
        if isinstance(out, Est) and out.category == "search":
            inner = args[0] if args else kwargs.get("estimator")
            out.options["searched"] = inner.cls if isinstance(inner, Est) else None
            out.options["grid_keys"] = _keys(_grid(node), self._bindings, node.lineno)  # type: ignore[attr-defined]
        return out

    def _search_fitted(self, est: Est, x: Data, node: ast.Call, frame: Any) -> None:
        super()._search_fitted(est, x, node, frame)  # type: ignore[misc]
        ps = parts(x.rows)
        if est.fit is None or not ps or any(s.kind in ("split", "fold") for p in ps for s in p.steps):
            return
        self.__dict__.setdefault("_whole_searches", []).append((est, est.fit))

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        if name in vocab.EVALUATE and self.__dict__.get("_whole_searches"):
            x = as_data(args[0] if args else vocab.model_input(kwargs))
            if x is not None:
                self._check_searched_first(est, x, node, frame)
        return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _check_searched_first(self, est: Est, x: Data, node: ast.Call, frame: Any) -> None:
        held = [p for p in parts(x.rows) if test_step(p) is not None or x.test]
        if not held:
            return
        for search, fit in self._whole_searches:
            if not any(covers(f, p) for f in parts(fit.rows) for p in held) or set(parts(fit.rows)) == set(held):
                continue  # (fitted on exactly the rows it scores: no split came after it, another question)
            if not self._chosen_by(est, search, fit, node, frame):
                continue
            self._reached.add((fit.line, fit.column))  # type: ignore[attr-defined]
            self._emit("trained_on_test", fit, line=node.lineno, data=x,  # type: ignore[attr-defined]
                       why=f"it chose the hyperparameters on every row before the split; the model built with "
                           f"its choice then scores the held-out rows ({self.smap.describe(node.lineno)}), "  # type: ignore[attr-defined]
                           "which were among the folds that chose them, so the test score is optimistic")
            return

    def _chosen_by(self, est: Est, search: Est, fit: Any, node: ast.Call, frame: Any) -> bool:
        """``est`` is the search, its ``best_estimator_``, built from its ``best_params_``, or of the searched class
        with a searched hyperparameter set by keyword (see the module docstring)."""
        if est is search or est.options.get("search") == search.uid:
            return True
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        chosen = self._search_choice_of(est, receiver, node.lineno, frame)  # type: ignore[attr-defined]
        if chosen is fit:
            return True
        keys = search.options.get("grid_keys") or frozenset()
        if est.cls != search.options.get("searched") or not keys or not isinstance(receiver, ast.Name):
            return False
        built = [b for b in self._bindings.get(receiver.id, ())  # type: ignore[attr-defined]
                 if b.lineno < node.lineno and isinstance(b, ast.Call)]
        if not built:
            return False
        last = max(built, key=lambda b: b.lineno)
        return any(k.arg in keys for k in last.keywords)
