"""A decision threshold chosen on the test rows' own curve, for the static leakage analysis (``tuned_on_test``).

``roc_curve(y_test, proba)`` and ``precision_recall_curve(y_test, proba)`` score every candidate threshold on the
rows they are given. Keeping the best of them (Youden's J, ``np.argmax(tpr - fpr)``; the best F1 over the
precision-recall curve) and then reporting precision, recall or F1 of ``proba >= threshold`` on those same rows is
a search over candidates scored on the test set, as a loop over hyperparameters is: the reported score is the
maximum of many test scores, and optimistic (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis,
Kästner, ASE 2022; Cawley & Talbot, JMLR 11, 2010, on selection bias in performance evaluation). The threshold
belongs to the model and must be chosen on training or validation rows (scikit-learn's
``TunedThresholdClassifierCV`` chooses it by cross-validation on the training rows).

The mixin :class:`ThresholdChoices` hooks the curve call: when its labels are test rows (a split's test part, a
test file, a part named for testing; a part named for validation stays silent), :func:`chosen_threshold` follows
the names of the enclosing function (or module) syntactically, in line order:

* the curve's outputs, and every name assigned from an expression that reads one (``j = tpr - fpr``,
  ``f1 = [2*p*r/(p+r) for p, r in zip(prec, rec)]``);
* a *choice*: a chooser (``argmax``, ``argmin``, ``nanargmax``, ``idxmax``...) of such a name;
* the threshold kept: the curve's threshold output indexed by the choice (``thresholds[best]``);
* its use on the same rows: a comparison with it (``proba >= t``) whose result, through assignments, container
  items and loops, reaches a metric call that also reads the curve's own labels (``f1_score(y_test, pred)``).

Only then is it reported, at the line of the choice. A threshold only drawn on a plot, printed, or applied to other
rows is silent.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import validation_named
from faultlib.detect.data.leakage.scoreloops import score_choices
from faultlib.detect.data.leakage.sweptresults import member_sweeps
from faultlib.detect.data.leakage.errorweights import error_weighted_blends
from faultlib.detect.data.leakage.helperloops import handed_score_choices
from faultlib.detect.data.leakage.labelrates import label_rate_cuts
from faultlib.detect.data.leakage.collectedscores import collected_test_choices
from faultlib.detect.data.leakage.curvecode import (
    _METRIC_SUFFIXES,
    CURVES,
    _chooses,
    _func_name,
    _names,
    _source,
    _statements,
    _targets,
)
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

def chosen_threshold(scope: ast.AST, curve_stmt: ast.stmt, labels: ast.expr) -> int | None:
    """The line of the choice of a threshold off the curve assigned by ``curve_stmt`` that is then applied to the
    same rows and scored with ``labels`` (see the module docstring); None when there is no such chain."""
    outputs = curve_stmt.targets[0] if isinstance(curve_stmt, ast.Assign) and len(curve_stmt.targets) == 1 else None
    if not isinstance(outputs, ast.Tuple) or not outputs.elts or not isinstance(outputs.elts[-1], ast.Name):
        return None
    thresholds = outputs.elts[-1].id
    curve, chosen, kept, applied = _names(outputs), set(), set(), set()
    choice_line = None
    want = ast.unparse(labels)
    for s in _statements(scope):
        if s.lineno <= curve_stmt.lineno:
            continue
        source = _source(s)
        reads = _names(s) if source is None else _names(source)
        if source is not None and _chooses(source, curve):
            chosen |= _targets(s)
            choice_line = choice_line or s.lineno
        picks = source is not None and any(
            isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == thresholds
            and (_names(n.slice) & chosen or _chooses(n.slice, curve)) for n in ast.walk(source))
        if picks:
            kept |= _targets(s)
            choice_line = choice_line or s.lineno
        elif source is not None and any(isinstance(n, ast.Compare) and _names(n) & kept for n in ast.walk(source)):
            applied |= _targets(s)
        elif source is not None and reads & applied:
            applied |= _targets(s)
        elif source is not None and reads & curve:
            curve |= _targets(s) - kept
        if (applied or kept) and any(isinstance(n, ast.Call) and _func_name(n).endswith(_METRIC_SUFFIXES) and (
                _names(n) & applied or any(isinstance(c, ast.Compare) and _names(c) & kept for c in ast.walk(n)))
                and any(ast.unparse(a) == want for a in n.args) for n in ast.walk(s if source is None else source)):
            return choice_line  # (the comparison may sit in the metric's call: f1_score(y_test, proba >= t))
    return None


class ThresholdChoices:
    """``tuned_on_test`` for a threshold read off the test rows' curve (see the module docstring); needs
    ``report``, ``smap``, ``tree`` and the test-rows predicate of :class:`~.choices.ChoiceChecks`."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in CURVES and node.args and args:
            self._check_curve(args[0], node, frame)
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def interpret(self) -> None:
        """After the run: a curve in code the run never reached (after an early ``return``, in a function nobody
        calls) whose labels are named for testing (``y_test``, ``y_te``) is checked too."""
        super().interpret()  # type: ignore[misc]
        seen = self.__dict__.setdefault("_curves_checked", set())
        for n in walk_once(self.tree):  # type: ignore[attr-defined]
            if isinstance(n, ast.Call) and _func_name(n) in CURVES and n.args and id(n) not in seen:
                base = n.args[0]
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name) and vocab.looks_like_test(base.id) and not validation_named(n.args[0]):
                    self._check_curve(None, n, None)
        self._helper_thresholds()
        self._score_loops()

    def _helper_thresholds(self) -> None:
        """A threshold a helper chose off the test curve, applied and scored by its caller (thresholdhelpers.py)."""
        from faultlib.detect.data.leakage.thresholdhelpers import helper_threshold_calls

        smap = self.smap  # type: ignore[attr-defined]
        done = self.__dict__.setdefault("_thresholds_reported", set())
        for line, helper, labels in helper_threshold_calls(self.tree):  # type: ignore[attr-defined]
            if line in done:
                continue
            done.add(line)
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"{helper}() on {smap.describe(line)} returns the decision threshold that scored best on the test "
                f"labels `{labels[:40]}` it is given (the best of every threshold of its curve), and predictions at "
                "that threshold are then scored on the same labels: the test rows chose it, so the score is "
                "optimistic (ASE'22 multi-test leakage). Fix: choose the threshold on a validation part or by "
                "cross-validation on the training part (scikit-learn's TunedThresholdClassifierCV), then score the "
                "test part once",
                {**smap.where(line)}, {"helper": helper, "labels": labels[:80]}, kind="tuned_on_test"))

    def _score_loops(self) -> None:
        """Blending weights or cut-offs tried in a loop, scored on the test labels, the best kept (scoreloops.py);
        the same loop in a helper a call hands the test labels (helperloops.py); blend weights set from the members'
        errors on the test labels (errorweights.py); a cut-off set from the test labels' positive rate (labelrates.py)."""
        tuned = [f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"]
        smap = self.smap  # type: ignore[attr-defined]
        found: list[tuple[int, str, dict[str, Any]]] = []
        handed = list(handed_score_choices(self.tree))  # type: ignore[attr-defined]
        for line, start, end in score_choices(self.tree):  # type: ignore[attr-defined]
            if any(smap.where(start).get("line", 0) <= t <= smap.where(end).get("line", 0) for t in tuned):
                continue  # the loop's model candidates are already reported (choices.py)
            if any(loop == start for _, loop in handed):
                continue  # a helper's loop on the labels it is given: one leak, reported where the test labels go in
            said = (f"the candidates the loop on {smap.describe(start)} tries are scored on the test labels "
                    f"({smap.describe(line)}) and the best is kept: the test rows chose them (blending weights, a "
                    "cut-off, a subset), so the best score is optimistic")
            found.append((line, said, {"loop": smap.where(start)}))
        for line, blend in error_weighted_blends(self.tree):  # type: ignore[attr-defined]
            said = (f"the blend on {smap.describe(blend)} weights its members by their errors on the test labels "
                    f"({smap.describe(line)}): the weights are fitted to the rows the blend is then scored on, so its "
                    "score is optimistic")
            found.append((line, said, {"blend": smap.where(blend)}))
        for line, loop in handed:
            said = (f"the call on {smap.describe(line)} hands the test labels to a helper whose loop on "
                    f"{smap.describe(loop)} scores candidates (a cut-off, weights) on the labels it is given and "
                    "keeps the best: the test rows chose it, so the score at it on those rows is optimistic")
            found.append((line, said, {"loop": smap.where(loop)}))
        for line in label_rate_cuts(self.tree):  # type: ignore[attr-defined]
            said = (f"the cut-off set on {smap.describe(line)} is a count or share of the test labels (their positive "
                    "rate), and predictions cut at it are scored on the same labels: the test labels set the decision "
                    "rule, so the score at it is optimistic")
            found.append((line, said, {"rate": smap.where(line)}))
        for line in member_sweeps(self.tree):  # type: ignore[attr-defined]
            said = (f"the call on {smap.describe(line)} hands the test labels and the predictions for those rows to a "
                    "sweep whose result gives the best cut-off and the best score at it: the test rows chose the "
                    "cut-off, so the score at it on those rows is optimistic")
            found.append((line, said, {"call": smap.where(line)}))
        for line, loop, end in collected_test_choices(self.tree):  # type: ignore[attr-defined]
            if any(smap.where(loop).get("line", 0) <= t <= smap.where(end).get("line", 0) for t in tuned):
                continue  # the loop's candidates are already reported (choices.py, scoreloops.py)
            said = (f"the loop on {smap.describe(loop)} scores every candidate (a cut-off, weights) on the test rows "
                    f"and their labels, and the best is picked on {smap.describe(line)}: the test rows chose it, so "
                    "the score at it on those rows is optimistic")
            found.append((line, said, {"loop": smap.where(loop)}))
        for line, said, evidence in found:
            if smap.where(line).get("line") in tuned:
                continue  # (a loop's own report is kept; see above)
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"{said} (ASE'22 multi-test leakage). Fix: choose on a validation part or out-of-fold predictions "
                "of the training part, then score the test part once", {**smap.where(line)}, evidence,
                kind="tuned_on_test"))

    def _check_curve(self, labels: Any, node: ast.Call, frame: Any) -> None:
        from faultlib.detect.data.leakage.values import maybe_data

        if frame is not None and not self._test_rows(labels, node.args[0]) and not _split_named_test(
                labels, node.args[0]):  # type: ignore[attr-defined]
            known = maybe_data(labels)
            if known is not None and known.rows is not None:  # rows the run knows are not test rows: done
                self.__dict__.setdefault("_curves_checked", set()).add(id(node))
            return  # opaque labels (a helper's parameter): the check after the run reads their name
        self.__dict__.setdefault("_curves_checked", set()).add(id(node))
        scope, stmt = _enclosing(self.tree, node)  # type: ignore[attr-defined]
        line = chosen_threshold(scope, stmt, node.args[0]) if stmt is not None else None
        done = self.__dict__.setdefault("_thresholds_reported", set())
        if line is None or line in done:
            return
        done.add(line)
        smap = self.smap  # type: ignore[attr-defined]
        self.report.findings.append(Finding(  # type: ignore[attr-defined]
            "leakage", Severity.WARNING,
            f"the decision threshold kept on {smap.describe(line)} is the best of every threshold "
            f"{_func_name(node)}() scored on the test rows `{ast.unparse(node.args[0])[:40]}` "
            f"({smap.describe(node.lineno)}), and predictions at it are then scored on those same rows: "
            "the test rows chose it, so the score is optimistic (ASE'22 multi-test leakage). Fix: choose the "
            "threshold on a validation part or by cross-validation on the training part (scikit-learn's "
            "TunedThresholdClassifierCV), then score the test part once",
            {**smap.where(line), "function": getattr(scope, "name", "<module>")},
            {"curve": smap.where(node.lineno), "labels": ast.unparse(node.args[0])[:80]},
            kind="tuned_on_test"))


def _split_named_test(labels: Any, arg: ast.expr) -> bool:
    """The labels are the first split's held-aside part of a table named for training, called ``y_test`` by the
    script (testparts.py): its reported test rows."""
    from faultlib.detect.data.leakage.testparts import split_named_test
    from faultlib.detect.data.leakage.values import maybe_data

    known = maybe_data(labels)
    return known is not None and split_named_test(known, arg)


def _enclosing(tree: ast.Module, call: ast.Call) -> tuple[ast.AST, ast.stmt | None]:
    """The innermost function (else the module) around ``call``, and the statement that holds it."""
    scope: ast.AST = tree
    for n in walk_once(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno <= call.lineno <= (
                n.end_lineno or n.lineno) and (scope is tree or n.lineno >= scope.lineno):  # type: ignore[attr-defined]
            scope = n
    stmt = next((s for s in _statements(scope) if isinstance(s, ast.Assign) and any(
        c is call for c in ast.walk(s.value))), None)
    return scope, stmt


__all__ = ["CURVES", "ThresholdChoices", "chosen_threshold"]
