"""Two candidates' test scores compared by an ``if`` that keeps one of them, for the static leakage analysis
(``tuned_on_test``).

A model-finder template of end-to-end projects fits two tuned models and keeps the one with the better score on the
rows it reports as the test part, without a loop (so the loop checks of :mod:`.choices`, :mod:`.scoreloops` and
:mod:`.reportpicks` do not see it)::

    lin = LinearRegression().fit(X_train, y_train)
    err_lin = mean_squared_error(y_test, lin.predict(X_test))         # <- reported here
    forest = RandomForestRegressor().fit(X_train, y_train)
    err_forest = mean_squared_error(y_test, forest.predict(X_test))
    if err_lin < err_forest:                                          # the test rows choose the model
        return lin
    return forest

The kept model's test score is the better of two noisy test scores: optimistic (ASE'22's *multi-test leakage*:
Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and better processes", ASE 2022;
Cawley & Talbot, JMLR 11, 2010). Wave 77: a ``ModelFinder.get_best_model`` comparing a linear model and a forest by
their MSE on ``test_x``.

:func:`compared_pairs` finds, syntactically and per function (or module level), two scores computed from the
predictions (``predict``, ``predict_proba``, ``score``) of two different models on rows named for testing (a name for
validation stays silent), compared by ``<``, ``>``, ``<=`` or ``>=`` in an ``if`` whose branches return or assign one
of the two models. Both models must be made in the same scope (assigned there, or fitted there) and neither loaded
(``load_object(...)``): a new model measured against a deployed one is an acceptance gate, not a choice among
candidates. A training score compared with a test score (an over-fitting check) involves one model and stays silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from faultlib.detect.data.leakage.reportpicks import PREDICTS, scopes, test_named
from faultlib.findings import Finding, Severity

_ORDERS = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)


@dataclass(frozen=True)
class ComparedPair:
    """The line of the first test prediction of the two models, the ``if`` comparing their scores, their names."""

    line: int
    compare: int
    models: tuple[str, str]


def _key(node: ast.expr) -> str | None:
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else None


def _test_prediction(node: ast.AST) -> tuple[str, int] | None:
    """(model, line) of a ``model.predict(X_test)`` (or ``model.score(X_test, ...)``) inside ``node``."""
    for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
        if isinstance(call.func, ast.Attribute) and call.func.attr in PREDICTS and call.args \
                and test_named(call.args[0]):
            model = _key(call.func.value)
            if model is not None:
                return model, call.lineno
    return None


def _made_here(scope: list[ast.stmt], model: str) -> bool:
    """``model`` is assigned (not loaded) or fitted in ``scope``."""
    made = False
    for node in (n for stmt in scope for n in ast.walk(stmt)):
        if isinstance(node, ast.Assign) and any(_key(t) == model for t in node.targets):
            loaded = any(isinstance(c, ast.Call) and "load" in ast.unparse(c.func).lower()
                         for c in ast.walk(node.value))
            if loaded:
                return False
            made = True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "fit" \
                and _key(node.func.value) == model:
            made = True
    return made


def _scores(scope: list[ast.stmt]) -> dict[str, tuple[str, int]]:
    """Each name (or attribute) assigned a value of one model's predictions on test rows: (model, prediction line)."""
    predictions: dict[str, tuple[str, int]] = {}
    scores: dict[str, tuple[str, int]] = {}
    assigns = sorted((n for stmt in scope for n in ast.walk(stmt) if isinstance(n, ast.Assign)),
                     key=lambda n: n.lineno)
    for node in assigns:
        keys = [k for k in (_key(t) for t in node.targets) if k is not None]
        if not keys:
            continue
        direct = _test_prediction(node.value)
        if direct is not None:
            is_metric = isinstance(node.value, ast.Call) and not (
                isinstance(node.value.func, ast.Attribute) and node.value.func.attr in PREDICTS
                and node.value.func.attr != "score")
            for k in keys:
                (scores if is_metric else predictions)[k] = direct
            continue
        read = {_key(n) for n in ast.walk(node.value) if isinstance(n, (ast.Name, ast.Attribute))}
        source = next((predictions[r] for r in read if r in predictions), None)
        if source is not None and isinstance(node.value, ast.Call):
            for k in keys:
                scores[k] = source
    return scores


def _keeps(branch: list[ast.stmt], models: tuple[str, str]) -> bool:
    """A statement of ``branch`` returns or assigns one of ``models``."""
    for node in (n for stmt in branch for n in ast.walk(stmt)):
        value = node.value if isinstance(node, (ast.Return, ast.Assign)) else None
        if value is not None and any(_key(n) in models for n in ast.walk(value)
                                     if isinstance(n, (ast.Name, ast.Attribute))):
            return True
    return False


def compared_pairs(tree: ast.AST) -> list[ComparedPair]:
    """Every ``if`` of ``tree`` that keeps one of two models by their test scores (see the module docstring)."""
    out: list[ComparedPair] = []
    for _, body in scopes(tree):
        scores = _scores(body)
        if len(scores) < 2:
            continue
        for node in (n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.If)):
            test = node.test
            if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _ORDERS)):
                continue
            left, right = scores.get(_key(test.left) or ""), scores.get(_key(test.comparators[0]) or "")
            if left is None or right is None or left[0] == right[0]:
                continue
            models = (left[0], right[0])
            if all(_made_here(body, m) for m in models) and _keeps(node.body + node.orelse, models) and \
                    not any(p.compare == node.lineno for p in out):
                out.append(ComparedPair(min(left[1], right[1]), node.lineno, models))
    return out


class PairPicks:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` for two models' test
    scores compared to keep one (see the module docstring); needs ``report``, ``smap`` and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        smap = self.smap  # type: ignore[attr-defined]
        tuned = {f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"}
        for found in compared_pairs(self.tree):  # type: ignore[attr-defined]
            where = smap.where(found.line)
            if where.get("line", 0) in tuned:
                continue
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"`{found.models[0]}` and `{found.models[1]}` are both scored on the test rows "
                f"({smap.describe(found.line)}) and the comparison on {smap.describe(found.compare)} keeps the "
                "better one: the test rows chose the model, so its test score is optimistic (ASE'22 multi-test "
                "leakage). Fix: compare the candidates on a validation part or by cross-validation of the "
                "training part, then score the test part once", {**where}, {"compare": smap.where(found.compare)},
                kind="tuned_on_test"))


__all__ = ["ComparedPair", "PairPicks", "compared_pairs"]
