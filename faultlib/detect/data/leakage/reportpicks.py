"""The best model of a score report written on the test rows, for the static leakage analysis (``tuned_on_test``).

The project template of many end-to-end repositories (``src/components/model_trainer.py`` beside ``src/utils.py``)
tries a dictionary of models in a helper and keeps the best one in its caller::

    def evaluate_models(X_train, y_train, X_test, y_test, models):      # utils.py
        report = {}
        for name, model in models.items():
            model.fit(X_train, y_train)
            score = r2_score(y_test, model.predict(X_test))              # <- reported here
            report[name] = score
        return report

    report = evaluate_models(X_train, y_train, X_test, y_test, models)    # model_trainer.py
    best_score = max(sorted(report.values()))                            # the test rows choose the model

The best score, logged as the model's score, is the maximum of several test scores: optimistic (ASE'22's
*multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and better
processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010). The loop and the choice are in two functions, often two
modules, so the in-loop checks of :mod:`.choices` and :mod:`.scoreloops` do not see them. Wave 78: five such
``model_trainer``/``utils`` pairs (student, gemstone, census, forest cover, churn) and one loop in the trainer itself.

:func:`score_reports` finds, syntactically, a ``for`` loop that fits a model (``.fit(...)``), predicts rows named
for testing (``predict(X_test)``; a name for validation stays silent) and stores, per candidate, a value computed
from those predictions or from labels named for testing into a dictionary (``report[name] = score``).
The report counts only where it is chosen from: in the same function after the loop (a chooser of the dictionary,
or of a dictionary filled from it: ``max``/``min``/``idxmax``, ``sorted(...)[0]``, ``max(d, key=d.get)``), or, when
the function returns the dictionary, at a call of the function whose result is so chosen, in the same module or in
a script of the same project that names the function (:func:`choosing_callers`). Scoring every candidate and only
printing the report stays silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from faultlib.detect.data.leakage import vocab
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: calls whose argument's best item they pick (``sorted`` picks only with ``[0]``/``[-1]`` after it)
_CHOOSERS = frozenset({"max", "min", "argmax", "argmin", "nanargmax", "nanargmin", "idxmax", "idxmin", "nlargest",
                       "nsmallest"})
PREDICTS = frozenset({"predict", "predict_proba", "decision_function", "score"})


@dataclass(frozen=True)
class ScoreReport:
    """A loop's per-candidate test scores: the line of the test prediction, the loop's lines, the dictionary's name,
    the function holding it (``None`` at module level) and whether that function returns the dictionary."""

    line: int
    start: int
    end: int
    report: str
    function: str | None
    returned: bool
    #: the helper's parameter the test rows come in through (its name, its position), when they do
    parameter: tuple[str, int] | None = None


def _name_of(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def test_named(node: ast.expr) -> bool:
    name = _name_of(node)
    return name is not None and vocab.looks_like_test(name) and not vocab.looks_like_validation(name)


def _attr(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigned(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    return []


def _loop_report(loop: ast.For) -> tuple[int, str, str] | None:
    """(line of the test prediction, dictionary name, name of the predicted rows) when ``loop`` fits, predicts
    test rows and stores per-candidate values computed from them."""
    calls = [n for n in ast.walk(loop) if isinstance(n, ast.Call)]
    if not any(_attr(c) in ("fit", "fit_transform") for c in calls):
        return None
    predicts = [c for c in calls if _attr(c) in PREDICTS and c.args and test_named(c.args[0])]
    if not predicts:
        return None
    tainted: set[str] = set()
    scored = [c for c in calls if any(test_named(a) for a in c.args) and _attr(c) not in ("fit", "fit_transform")]
    for stmt in sorted((s for s in ast.walk(loop) if isinstance(s, ast.stmt)), key=lambda s: s.lineno):
        value = getattr(stmt, "value", None)
        if value is None:
            continue
        reads = _names(value)
        from_test = any(c in scored for c in ast.walk(value) if isinstance(c, ast.Call)) or bool(reads & tainted)
        for target in _assigned(stmt):
            if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and from_test
                    and not _array_slots(target.slice)):
                return predicts[0].lineno, target.value.id, _name_of(predicts[0].args[0]) or ""
            if from_test:
                tainted |= _names(target)
    return None


def _array_slots(key: ast.expr) -> bool:
    """``errors[:, i, 0] = ...``: a slice of an array filled per repetition (a simulation's bias-variance table,
    wave 77), not a report keyed by candidate."""
    return isinstance(key, ast.Slice) or (isinstance(key, ast.Tuple) and any(isinstance(e, ast.Slice) for e in key.elts))


def _chosen(scope: list[ast.stmt], names: set[str], after: int) -> bool:
    """A chooser after line ``after`` reads one of ``names`` or a dictionary filled from them."""
    return chooser_line(scope, names, after) is not None


def chooser_line(scope: list[ast.stmt], names: set[str], after: int) -> int | None:
    """The line of the first chooser after line ``after`` (in ``scope``'s walk order) that reads one of ``names`` or
    a dictionary filled from them; ``None`` when there is none."""
    names = set(names)
    nodes = [n for stmt in scope for n in ast.walk(stmt) if getattr(n, "lineno", 0) > after]
    for node in sorted((n for n in nodes if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        if _names(node.value) & names:
            names |= {t.value.id for t in node.targets
                      if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
    for node in nodes:
        if isinstance(node, ast.Call):
            fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if fname in _CHOOSERS and _names(node) & names:
                return node.lineno
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) == "sorted" and _names(node.value) & names and \
                isinstance(node.slice, (ast.Constant, ast.UnaryOp)):
            return node.lineno
    return None


def scopes(tree: ast.AST) -> list[tuple[str | None, list[ast.stmt]]]:
    out: list[tuple[str | None, list[ast.stmt]]] = [(None, [s for s in getattr(tree, "body", [])
                                                          if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                                ast.ClassDef))])]
    out += [(n.name, n.body) for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _parameters(tree: ast.AST) -> dict[str, list[str]]:
    """Each function's positional parameters, a method's ``self``/``cls`` aside (a call ``obj.f(a)`` binds ``a``
    to the first one after it)."""
    return {n.name: [a.arg for a in n.args.posonlyargs + n.args.args if a.arg not in ("self", "cls")]
            for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _fold_loops(tree: ast.AST) -> set[int]:
    """The ``for`` loops over a scikit-learn splitter's folds (``for tr, te in kf.split(X, y)``, also under
    ``enumerate``), with ``kf`` bound to a splitter of :data:`vocab.SPLITTERS` or the splitter built in place."""
    splitters = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                 and _called_name(n.value) in vocab.SPLITTERS for t in n.targets if isinstance(t, ast.Name)}
    loops: set[int] = set()
    for node in walk_once(tree):
        if not isinstance(node, ast.For):
            continue
        for call in (c for c in ast.walk(node.iter) if isinstance(c, ast.Call) and _attr(c) == "split"):
            receiver = call.func.value  # type: ignore[union-attr]
            if (isinstance(receiver, ast.Name) and receiver.id in splitters) or (
                    isinstance(receiver, ast.Call) and _called_name(receiver) in vocab.SPLITTERS):
                loops.add(id(node))
    return loops


def _called_name(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def score_reports(tree: ast.AST) -> list[ScoreReport]:
    """Every loop of ``tree`` that writes a test-score report (see the module docstring)."""
    out: list[ScoreReport] = []
    params = _parameters(tree)
    folds = _fold_loops(tree)
    for function, body in scopes(tree):
        loops = [n for stmt in body for n in ast.walk(stmt) if isinstance(n, ast.For)]
        returned = {_name_of(n.value) for stmt in body for n in ast.walk(stmt)
                    if isinstance(n, ast.Return) and n.value is not None}
        for loop in loops:
            if any(isinstance(n, ast.For) and id(n) in folds for n in ast.walk(loop)):
                continue  # the "test" rows are cross-validation folds: choosing by their scores is model selection
            found = _loop_report(loop)
            if found is not None and not any(r.start <= loop.lineno <= r.end for r in out):
                names = params.get(function or "", [])
                parameter = (found[2], names.index(found[2])) if found[2] in names else None
                out.append(ScoreReport(found[0], loop.lineno, loop.end_lineno or loop.lineno, found[1], function,
                                       function is not None and found[1] in returned, parameter))
    return out


def locally_chosen(tree: ast.AST, report: ScoreReport) -> bool:
    """The report is chosen from in its own function (or module level), after its loop."""
    body = next(b for f, b in scopes(tree) if f == report.function)
    return _chosen(body, {report.report}, report.end)


def _passed(call: ast.Call, parameter: tuple[str, int] | None) -> ast.expr | None:
    """The argument ``call`` binds to ``parameter`` (a keyword, else its position; a method's ``self`` aside)."""
    if parameter is None:
        return None
    keyword = next((k.value for k in call.keywords if k.arg == parameter[0]), None)
    if keyword is not None:
        return keyword
    return call.args[parameter[1]] if parameter[1] < len(call.args) else None


def _validation_passed(call: ast.Call, parameter: tuple[str, int] | None) -> bool:
    arg = _passed(call, parameter)
    name = _name_of(arg) if arg is not None else None
    return name is not None and vocab.looks_like_validation(name)


def choosing_callers(tree: ast.AST, function: str, parameter: tuple[str, int] | None = None) -> bool:
    """A scope of ``tree`` binds the result of a call of ``function`` and picks the best item of it (a call that
    hands rows named for validation to ``parameter``, the helper's test rows, is not counted)."""
    for _, body in scopes(tree):
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) and \
                        (getattr(node.value.func, "id", None) == function or _attr(node.value) == function) and \
                        not _validation_passed(node.value, parameter):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if _chosen(body, set().union(*(_names(t) for t in targets)), node.lineno - 1):
                        return True
    return False


@lru_cache(maxsize=8)
def _project_choosers(root: str, function: str, parameter: tuple[str, int] | None) -> bool:
    from faultlib.detect.data.leakage.reposcripts import project_scripts
    from faultlib.detect.data.leakage.session import _raw, _text_tree

    for path in project_scripts(Path(root)):
        text = _raw(path)  # the hardened reader (bounded, no links, UTF-8), as the session's joins read scripts
        if text is None or function not in text:
            continue
        tree = _text_tree(text)  # one parse per text, shared with the session
        if tree is not None and choosing_callers(tree, function, parameter):
            return True
    return False


def chosen_elsewhere(script: str | None, tree: ast.AST, found: ScoreReport) -> bool:
    """A caller in ``tree`` or in a script of ``script``'s project picks the best item of the report ``found``'s
    function returns."""
    function = found.function or ""
    if choosing_callers(tree, function, found.parameter):
        return True
    if not script:
        return False
    from faultlib.detect.data.leakage.repofiles import repo_root

    return _project_choosers(str(repo_root(script)), function, found.parameter)


class ReportPicks:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` for a test-score report
    whose best item is kept (see the module docstring); needs ``report``, ``smap`` and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        tuned = [f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"]
        smap = self.smap  # type: ignore[attr-defined]
        for found in score_reports(self.tree):  # type: ignore[attr-defined]
            lines = (smap.where(found.start).get("line", 0), smap.where(found.end).get("line", 0))
            if any(lines[0] <= t <= lines[1] for t in tuned):
                continue  # the loop's candidates are already reported (choices.py, scoreloops.py)
            tree = self.tree  # type: ignore[attr-defined]
            elsewhere = found.returned and found.function is not None and \
                chosen_elsewhere(getattr(smap, "file", None), tree, found)
            if not (locally_chosen(tree, found) or elsewhere):
                continue
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"every candidate the loop on {smap.describe(found.start)} fits is scored on the test rows "
                f"({smap.describe(found.line)}) into `{found.report}`, and the best of that report is kept as the "
                "model: the test rows chose it, so its test score is optimistic (ASE'22 multi-test leakage). Fix: "
                "choose the model on a validation part or by cross-validation of the training part, then score "
                "the test part once", {**smap.where(found.line)}, {"loop": smap.where(found.start)},
                kind="tuned_on_test"))


__all__ = ["PREDICTS", "ReportPicks", "ScoreReport", "chooser_line", "choosing_callers", "chosen_elsewhere", "locally_chosen", "scopes",
           "score_reports", "test_named"]
