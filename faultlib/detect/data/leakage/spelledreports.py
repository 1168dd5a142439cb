"""A report of test scores written one candidate a statement, and its best item kept, for the static leakage
analysis (``tuned_on_test``).

:mod:`.reportpicks` reads a loop that fits and scores each candidate into a dictionary; training scripts also spell
the candidates out, one statement each, and pick the best the same way::

    results = {}
    results["forest"] = evaluate(fit_forest(X_train, y_train), X_test, y_test)      # a metrics dictionary
    results["svm"] = evaluate(fit_svm(X_train, y_train), X_test, y_test)
    best = max(results.items(), key=lambda kv: kv[1]["accuracy"])                   # <- reported here
    print("best model", best[0], best[1]["accuracy"])

(or ``results = {"forest": ..., "svm": ...}`` in one literal). The model announced as the best is the one that did
best on the test rows, and the score shown for it is the maximum of several test scores: optimistic (ASE'22's
*multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and better
processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010). Issue 17 wave 96: four bearing-fault classifiers scored on
``X_test`` and the maximum accuracy printed as the best model.

:func:`spelled_reports` finds, syntactically and per function (or module level), outside any loop, two or more
stores into one dictionary under different constant keys whose values differ and are computed by a call that takes
rows named for testing (``X_test``, ``y_test``; a name for validation stays silent), followed by a chooser of that
dictionary (``max``/``min``/``idxmax``, ``sorted(...)[0]``, ``max(d, key=d.get)``: :func:`.reportpicks.chooser_line`).
Scoring the candidates and only printing them stays silent, and so does one candidate's scores on several parts.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from faultlib.detect.data.leakage.reportpicks import chooser_line, scopes, test_named
from faultlib.detect.data.leakage.scorelists import is_metric
from faultlib.detect.data.leakage.targets import call_name, label_like
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import tree_fact

_NESTED = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FITS = frozenset({"fit", "fit_transform", "fit_resample"})
#: words of a callee's name that say it evaluates a model (``evaluate``, ``score_model``, ``test_model``,
#: ``compute_metrics``, ``get_accuracy``)
_EVALUATING = ("eval", "score", "test", "metric", "accura")


@dataclass(frozen=True)
class SpelledReport:
    """Candidates' test scores stored one a statement: the dictionary, the line of its first store, the line of the
    chooser that picks its best item."""

    report: str
    first: int
    chosen: int


def _straight(body: list[ast.stmt]) -> list[ast.Assign]:
    """The assignments of ``body`` outside loops and nested definitions (a loop is :mod:`.reportpicks`' case)."""
    found: list[ast.Assign] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Assign):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: n.lineno)


def _given(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def _test_labels(node: ast.expr) -> bool:
    """``y_test``, ``y_test[:, 0]``, ``test_labels``: the labels of rows named for testing."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and test_named(node) and label_like(node.id)


def _scoring(call: ast.Call) -> bool:
    """``call`` reads the test labels or is an evaluation: a score compares predictions with labels, so a call
    given the test labels (``evaluate(m, X_test, y_test)``), a metric (:func:`.scorelists.is_metric`) or a call
    named for evaluating (``evaluate(m, test_loader)``, ``test_model(m, X_test)``) scores; a call given the test
    rows alone for another measure (``time_predict(m, X_test)``: a latency, a size) does not."""
    return any(_test_labels(a) for a in _given(call)) or is_metric(call) or any(
        word in call_name(call).lower() for word in _EVALUATING)


def _scores_test_rows(value: ast.expr) -> bool:
    """``value`` holds a call, not a fit, that takes rows named for testing, and a call that scores
    (:func:`_scoring`: ``evaluate(m, X_test, y_test)``, ``accuracy_score(y_test, m.predict(X_test))``)."""
    calls = [c for c in ast.walk(value) if isinstance(c, ast.Call) and not (
        isinstance(c.func, ast.Attribute) and c.func.attr in _FITS)]
    return any(test_named(a) for c in calls for a in _given(c)) and any(_scoring(c) for c in calls)


def _stores(assigns: list[ast.Assign]) -> dict[str, list[tuple[int, object, str]]]:
    """dictionary name -> [(line, key, value text)] of its stores of test scores under constant keys."""
    out: dict[str, list[tuple[int, object, str]]] = {}
    for node in assigns:
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and isinstance(
                    target.slice, ast.Constant) and _scores_test_rows(node.value):
                out.setdefault(target.value.id, []).append(
                    (node.lineno, target.slice.value, ast.unparse(node.value)))
            elif isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
                for key, value in zip(node.value.keys, node.value.values):
                    if isinstance(key, ast.Constant) and _scores_test_rows(value):
                        out.setdefault(target.id, []).append((node.lineno, key.value, ast.unparse(value)))
    return out


def spelled_reports(tree: ast.Module) -> list[SpelledReport]:
    """Every report of ``tree`` written one candidate a statement and then chosen from (see the module docstring);
    computed once per tree."""
    return tree_fact(tree, _spelled_reports)


def _spelled_reports(tree: ast.Module) -> list[SpelledReport]:
    out: list[SpelledReport] = []
    for _, body in scopes(tree):
        for name, stores in _stores(_straight(body)).items():
            if len({key for _, key, _ in stores}) < 2 or len({text for _, _, text in stores}) < 2:
                continue
            line = chooser_line(body, {name}, max(line for line, _, _ in stores))
            if line is not None:
                out.append(SpelledReport(name, min(line for line, _, _ in stores), line))
    return out


class SpelledReports:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` at the chooser of a
    spelled-out test-score report (see the module docstring); needs ``report``, ``smap`` and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        smap = self.smap  # type: ignore[attr-defined]
        for found in spelled_reports(self.tree):  # type: ignore[attr-defined]
            where = smap.where(found.chosen)
            if any(f.kind == "tuned_on_test" and f.location.get("line") == where.get("line") and
                   f.location.get("index") == where.get("index") for f in self.report.findings):  # type: ignore[attr-defined]
                continue
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"each candidate is scored on the test rows into `{found.report}` (from "
                f"{smap.describe(found.first)}), and {smap.describe(found.chosen)} keeps the best of that report: "
                "the test rows chose the model, so the score shown for it is optimistic (ASE'22 multi-test leakage). "
                "Fix: choose the model on a validation part or by cross-validation of the training part, then score "
                "the test part once", {**where}, {"report": found.report, "first_score": smap.where(found.first)},
                kind="tuned_on_test"))


__all__ = ["SpelledReport", "SpelledReports", "spelled_reports"]
