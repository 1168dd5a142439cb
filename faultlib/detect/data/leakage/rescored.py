"""A search's choice scored again by cross-validating the rows it searched, for the static leakage analysis's
``tuned_on_test``.

``GridSearchCV(Lasso(), grid, cv=5).fit(X, y)`` keeps the ``alpha`` whose mean score over the folds of ``X`` is
best. Building ``Lasso(alpha=search.best_params_['alpha'])`` (or taking ``search.best_estimator_``) and reporting
``cross_validate(model, X, y, cv=5)`` then scores the chosen model on rows that chose it: the reported score is the
best of many noisy fold means, optimistic as any choice made on the scored rows is. The honest estimate
cross-validates the search itself, a nested cross-validation (``cross_val_score(search, X, y)``, silent here):
Varma & Simon, "Bias in error estimation when using cross-validation for model selection", BMC Bioinformatics
2006; Cawley & Talbot, "On over-fitting in model selection and subsequent selection bias in performance
evaluation", JMLR 2010; scikit-learn user guide, "Nested versus non-nested cross-validation". Wave 63 (a
Parkinson's radiomics study): 31 regressors, each tuned by ``GridSearchCV(cv=nof)`` and re-scored by
``cross_validate(cv=nof)`` on the same rows.

Reported at the search's fit when the cross-validated rows are the rows the search was fitted on and the model is
the search's ``best_estimator_`` or is built, in the same function, from values read out of its ``best_params_``
(directly or through up to :data:`DEPTH` assignments). A search on one part whose choice is cross-validated on
other rows stays silent, and so does a cross-validation of an estimator that never read the search's result. So
does a re-score on the training part of a split (:func:`held_out_elsewhere`): there the cross-validated means only
compare candidates, and the part the split held out is the estimate the choice answers to (the scikit-learn user
guide's "Tuning the hyper-parameters of an estimator": develop on a training set, evaluate on a held-out set; wave 62,
a sentiment notebook whose three searches are re-scored on the training part, compared, and each scored on the
test part).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.rowdraws import function_spans
from faultlib.detect.data.leakage.values import Est, FitRef, covers, maybe_data, parts
from faultlib.findings import Finding, Severity

#: cross-validations that report the scores of the estimator they are given
RESCORES = frozenset({"cross_val_score", "cross_validate", "cross_val_predict"})
#: how many assignments back a constructor's argument is followed to ``best_params_``
DEPTH = 3


def _argument(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg == keyword), None)


def same_rows(a: Any, b: Any) -> bool:
    """Every part of ``a`` is covered by a part of ``b`` and the other way round (both known)."""
    pa, pb = parts(a), parts(b)
    return bool(pa) and bool(pb) and all(any(covers(q, p) for q in pb) for p in pa) and \
        all(any(covers(q, p) for q in pa) for p in pb)


def _searches_read(expr: ast.expr) -> set[str]:
    """The names whose ``best_params_`` the expression reads (``s.best_params_['C']``, ``**s.best_params_``)."""
    return {n.value.id for n in ast.walk(expr)
            if isinstance(n, ast.Attribute) and n.attr == "best_params_" and isinstance(n.value, ast.Name)}


def held_out_elsewhere(rows: Any) -> bool:
    """Every part of ``rows`` is the training side of a split the analysis saw (not a name alone): other rows of the
    same data were held out."""
    ps = parts(rows)
    return bool(ps) and all(any(s.kind == "split" and s.part == "train" for s in p.steps) for p in ps)


class _Scope:
    """The simple assignments of the function (or top level) holding a line, the last one first."""

    def __init__(self, tree: ast.AST, bindings: dict[str, list[ast.expr]], line: int):
        spans = function_spans(tree)
        self._spans, self._bindings, self._line = spans, bindings, line
        self._home = self._innermost(line)

    def _innermost(self, line: int) -> tuple[int, int] | None:
        inside = [s for s in self._spans if s[0] <= line <= s[1]]
        return max(inside) if inside else None

    def last(self, name: str, before: int) -> ast.expr | None:
        found = [b for b in self._bindings.get(name, ()) if b.lineno < before and self._innermost(b.lineno) == self._home]
        return max(found, key=lambda b: b.lineno) if found else None


class RescoredSearches:
    """``tuned_on_test`` for a searched choice cross-validated on the searched rows (see the module docstring);
    needs ``tree``, ``_bindings``, ``_lookup``, ``report`` and ``smap``."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in RESCORES:
            self._check_rescored(args, kwargs, node, frame)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _check_rescored(self, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> None:
        est = args[0] if args else kwargs.get("estimator")
        x = maybe_data(args[1] if len(args) > 1 else kwargs.get("X"))
        fit = self._search_choice_of(est, _argument(node, 0, "estimator"), node.lineno, frame)
        if fit is None or x is None or not same_rows(fit.rows, x.rows) or held_out_elsewhere(fit.rows):
            return
        done = self.__dict__.setdefault("_rescored", set())
        if fit.uid in done:
            return
        done.add(fit.uid)
        self.report.findings.append(Finding(  # type: ignore[attr-defined]
            "leakage", Severity.WARNING,
            f"{fit.estimator} `{fit.variable}` chooses hyperparameters by cross-validating "
            f"{self._words(fit.rows)} ({fit.method} on {self.smap.describe(fit.line)}); "  # type: ignore[attr-defined]
            f"{node.func.attr if isinstance(node.func, ast.Attribute) else ast.unparse(node.func)}() on "
            f"{self.smap.describe(node.lineno)} then scores the chosen model on the same rows: "  # type: ignore[attr-defined]
            "the folds it reports chose the model, so its score is optimistic (no nested cross-validation). Fix: "
            "cross-validate the search itself (cross_val_score(search, X, y)) or score the choice on rows the search "
            "never saw",
            {**self.smap.where(fit.line), "column": fit.column, "function": fit.function},  # type: ignore[attr-defined]
            {"rescored_line": node.lineno, "rows": fit.rows.describe() if fit.rows is not None else None},
            kind="tuned_on_test"))

    def _search_choice_of(self, est: Any, expr: ast.expr | None, line: int, frame: Any) -> FitRef | None:
        """The fit of the search whose choice ``est`` is: its ``best_estimator_``, or a model whose constructor
        read its ``best_params_``."""
        if isinstance(est, Est) and est.cls.endswith(".best_estimator_") and est.fit is not None:
            return est.fit
        if expr is None:
            return None
        scope = _Scope(self.tree, self._bindings, line)  # type: ignore[attr-defined]
        if isinstance(expr, ast.Name):
            expr = scope.last(expr.id, line)
        if not isinstance(expr, ast.Call):
            return None
        for name in sorted(self._best_params_reads(expr, scope)):
            search = self._lookup(name, frame)  # type: ignore[attr-defined]
            if isinstance(search, Est) and search.category == "search" and search.fit is not None:
                return search.fit
        return None

    @staticmethod
    def _best_params_reads(call: ast.Call, scope: _Scope) -> set[str]:
        """The searches whose ``best_params_`` the constructor's arguments read, following names back."""
        found: set[str] = set()
        todo = [(a, 0) for a in [*call.args, *(k.value for k in call.keywords)]]
        while todo:
            expr, depth = todo.pop()
            found |= _searches_read(expr)
            if depth >= DEPTH:
                continue
            for n in ast.walk(expr):
                bound = scope.last(n.id, getattr(expr, "lineno", 0) or call.lineno) if isinstance(n, ast.Name) else None
                if bound is not None:
                    todo.append((bound, depth + 1))
        return found


__all__ = ["DEPTH", "RESCORES", "RescoredSearches", "held_out_elsewhere", "same_rows"]
