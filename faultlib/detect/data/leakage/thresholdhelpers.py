"""A threshold chosen off the test curve inside a helper and applied by its caller, for ``tuned_on_test``.

:mod:`.thresholds` reads the choice of a decision threshold off ``roc_curve``/``precision_recall_curve`` and its use on
the same rows within one function. Projects put the choice in a utility module and the use in the script::

    def best_threshold_f1(y_true, y_proba):                 # utils.py
        precision, recall, thresholds = precision_recall_curve(y_true, y_proba)
        f1 = 2 * precision[:-1] * recall[:-1] / (precision[:-1] + recall[:-1] + 1e-12)
        i = int(np.argmax(f1))
        return float(thresholds[i]), float(f1[i])

    thr, best = best_threshold_f1(y_test, proba)            # the script
    report(y_test, apply_threshold(proba, thr))             # a helper that calls the metrics

The caller passes the test labels, gets back the threshold that scored best on them, and scores predictions at it
on the same labels: the same search over candidates scored on the test rows, split over two functions (issue 17 wave
86: a sepsis project's ``utils.best_threshold_f1``; the house rule of wave 39, a threshold read off the test curve).

:func:`helper_threshold_calls` finds, syntactically: a module-level function whose curve takes one of its parameters
as the labels and that *returns* the curve's threshold output indexed by a choice (``argmax`` of a value computed from
the curve, as in :mod:`.thresholds`); a call of it given labels named for testing (``y_test``, not a validation
name) whose returned threshold is bound to a name; and, after the call in the caller's scope, a value computed from
that name (``proba >= thr``, ``apply_threshold(proba, thr)``, and what is computed from those) passed, with the same
labels, to a metric (``*_score``, ``*_matrix``, ``*_report``) or to a function of the program that calls one. It is
reported at the call. A threshold only printed, or applied to other rows, stays silent.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name, validation_named
from faultlib.detect.data.leakage.curvecode import (
    _CHOOSERS,
    _METRIC_SUFFIXES,
    CURVES,
    _names,
)
from faultlib.detect.data.leakage.curvecode import _statements as _own
from faultlib.pyflow.walk import walk_once


def _returned_threshold(func: ast.FunctionDef) -> tuple[int, int | None] | None:
    """``(labels position, index in the returned tuple or None for the whole value)`` when ``func`` returns the
    threshold its curve chose on a parameter's labels."""
    params = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    curve: set[str] = set()
    thresholds = None
    labels_at = None
    chosen: set[str] = set()
    for s in _own(func):
        value = s.value if isinstance(s, (ast.Assign, ast.Return)) else None
        if isinstance(s, ast.Assign) and isinstance(value, ast.Call) and call_name(value) in CURVES and \
                value.args and isinstance(value.args[0], ast.Name) and value.args[0].id in params and \
                len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) and s.targets[0].elts and \
                isinstance(s.targets[0].elts[-1], ast.Name):
            labels_at = params.index(value.args[0].id)
            curve = _names(s.targets[0])
            thresholds = s.targets[0].elts[-1].id
            continue
        if thresholds is None or value is None:
            continue
        if isinstance(s, ast.Assign):
            targets = {t.id for t in s.targets if isinstance(t, ast.Name)}
            if any(isinstance(n, ast.Call) and call_name(n) in _CHOOSERS and _names(n) & curve
                   for n in ast.walk(value)):
                chosen |= targets
            elif _names(value) & curve:
                curve |= targets - {thresholds}
            continue
        items = value.elts if isinstance(value, ast.Tuple) else [value]
        for i, item in enumerate(items):
            if any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == thresholds and
                   _names(n.slice) & chosen for n in ast.walk(item)):
                return labels_at, (i if isinstance(value, ast.Tuple) else None)  # type: ignore[return-value]
    return None


def _scoring_functions(tree: ast.Module) -> set[str]:
    """Functions of the program whose body calls a metric (``eval_binary`` printing ``f1_score(...)``)."""
    return {n.name for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(c, ast.Call) and call_name(c).endswith(_METRIC_SUFFIXES) for c in ast.walk(n))}


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def helper_threshold_calls(tree: ast.Module) -> list[tuple[int, str, str]]:
    """``(line of the call, helper name, labels)`` of each call described in the module docstring."""
    helpers = {n.name: found for n in tree.body if isinstance(n, ast.FunctionDef)
               and (found := _returned_threshold(n)) is not None}
    if not helpers:
        return []
    scoring = _scoring_functions(tree)
    out = []
    for scope in _scopes(tree):
        statements = _own(scope)
        for k, s in enumerate(statements):
            if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and len(s.targets) == 1):
                continue
            name = call_name(s.value)
            if name not in helpers:
                continue
            labels_at, item = helpers[name]
            if len(s.value.args) <= labels_at:
                continue
            labels = s.value.args[labels_at]
            base = labels
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if not (isinstance(base, ast.Name) and vocab.looks_like_test(base.id)) or validation_named(labels):
                continue
            target = s.targets[0]
            kept = target.elts[item] if item is not None and isinstance(target, ast.Tuple) and item < len(
                target.elts) else target if item is None else None
            if not isinstance(kept, ast.Name):
                continue
            if _applied_and_scored(statements[k + 1:], kept.id, ast.unparse(labels), scoring):
                out.append((s.lineno, name, ast.unparse(labels)))
    return out


def _applied_and_scored(after: list[ast.stmt], kept: str, labels: str, scoring: set[str]) -> bool:
    """A value computed from ``kept`` reaches, with ``labels``, a metric or a scoring function of the program."""
    applied: set[str] = set()
    for s in after:
        if isinstance(s, ast.Assign):
            targets = {t.id for t in s.targets if isinstance(t, ast.Name)}
            if kept in targets:
                return False  # the name is bound again: later uses are another value
            if _names(s.value) & ({kept} | applied):
                applied |= targets
        for n in ast.walk(s):
            if isinstance(n, ast.Call) and (call_name(n).endswith(_METRIC_SUFFIXES) or call_name(n) in scoring) \
                    and any(ast.unparse(a) == labels for a in n.args) and any(
                        _names(a) & (applied | {kept}) for a in [*n.args, *(k.value for k in n.keywords)]):
                return True
    return False


__all__ = ["helper_threshold_calls"]
