"""Parameters a second-level fit learnt on held-out rows, handed to a scoring helper that scores the same rows.

Ordinal targets (a severity grade, a quality score) are often predicted as numbers and cut into classes at
thresholds an optimiser learns from the labels (the "OptimizedRounder" of many Kaggle kernels: Nelder-Mead over
the cut points to maximise quadratic weighted kappa). Fitted on a fold's held-out predictions and labels, the
thresholds are the fold's own best cut, and scoring the same fold with them is a training score::

    def evaluate(y_true, y_pred, cuts):                          # the project's scoring helper
        graded = Rounder().predict(y_pred, cuts)                  # a fresh rounder, given the learnt cuts
        return cohen_kappa_score(y_true, graded, weights="quadratic")

    rounder = Rounder()
    rounder.fit(fold_pred, y_val)                                 # <- trained_on_test: cuts learnt on the fold
    kappa = evaluate(y_val, fold_pred, rounder.coef_)             # ... and scored on the same fold

:mod:`.stackfits` reports the same fit when the metric is called in the script (``cohen_kappa_score(y_val,
rounder.predict(fold_pred, rounder.coef_))``); here the metric is in a function of the program, and the learnt
parameters reach it through the helper's arguments (issue 17 wave 87: a Child Mind Institute solution whose
per-fold QWK, also saved as each model's blending weight, is measured with thresholds fitted on that fold).

Found syntactically (:func:`helper_scored_fits`): a module-level function whose body calls a metric
(:func:`~.stackfits._metric`) with two arguments, each built from some of its parameters (through the function's own
assignments and the calls it makes); in a scope of the program, ``m.fit(P, Y)`` with ``Y`` held-out labels or ``P``
held-out predictions (:func:`~.stackfits._held_labels`, :func:`~.stackfits._held_out`), and after it a call of such a
helper given ``Y`` where one metric argument's parameters are and, where the other's are, a value built from
``m``'s learnt parameters (``m.coef_``, ``m.coefficients()``, ``m.thresholds_``) or its predictions for ``P``:
``trained_on_test`` at the fit. A rounder fitted on the training part's predictions, or whose cuts are scored on
other labels, stays silent, as does a helper given fixed cuts. A fit given rows and labels named for validation
while the program scores a part named for testing (``calibrator.fit(p_val, y_val)`` beside ``evaluate("test",
y_test, p_test)``) is the validation step of a three-way design and stays silent, as in :mod:`.stackfits`
(:func:`~.valparams.validation_fit`).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.stackfits import (
    Binds, StackedFit, _binds, _from_model, _held_labels, _held_out, _metric, _norm, _scopes, selection_base)
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.valparams import validation_fit

__all__ = ["helper_scored_fits", "scoring_helpers"]

#: what a fitted threshold or weight optimiser exposes as its learnt parameters (attributes, or a method's result)
_LEARNT = frozenset({"coef_", "coefficients", "coef", "thresholds", "thresholds_", "cutoffs", "get_coefficients",
                     "weights", "weights_"})
_DEPTH = 5


def _params(func: ast.FunctionDef) -> list[str]:
    return [a.arg for a in [*func.args.posonlyargs, *func.args.args]]


def _reached(expr: ast.expr, params: list[str], binds: Binds, depth: int = 0) -> frozenset[int]:
    """The positions of the parameters ``expr`` is built from, through the bindings of the function's scope."""
    out: set[int] = set()
    for node in ast.walk(expr):
        if not isinstance(node, ast.Name):
            continue
        if node.id in params:
            out.add(params.index(node.id))
        elif depth < _DEPTH:
            for _, value, _ in binds.get(node.id, ()):
                out |= _reached(value, params, binds, depth + 1)
    return frozenset(out)


def scoring_helpers(tree: ast.Module) -> dict[str, list[tuple[list[str], tuple[frozenset[int], ...]]]]:
    """``{name: [(parameters, positions each metric argument is built from), ...]}`` for the module-level functions
    that score their parameters with a metric (one entry a metric call with two or more arguments built from them)."""
    out: dict[str, list[tuple[list[str], tuple[frozenset[int], ...]]]] = {}
    for func in tree.body:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = _params(func)
        nodes = [n for n in ast.walk(func) if n is not func]
        binds = _binds(nodes)
        for call in (n for n in nodes if _metric(n)):
            reached = tuple(_reached(a, params, binds) for a in call.args)  # type: ignore[attr-defined]
            if sum(1 for r in reached if r) >= 2:
                out.setdefault(func.name, []).append((params, reached))
    return out


def _call_args(call: ast.Call, params: list[str]) -> dict[int, ast.expr]:
    """The helper's arguments by parameter position (positional, or by keyword)."""
    args = {i: a for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)}
    args.update({params.index(k.arg): k.value for k in call.keywords if k.arg in params})
    return args


def _learnt(expr: ast.expr, model: str) -> bool:
    """``model.coef_``, ``model.coefficients()``: the parameters ``model`` learnt, read."""
    return any(isinstance(n, ast.Attribute) and n.attr in _LEARNT and isinstance(n.value, ast.Name) and
               n.value.id == model for n in ast.walk(expr))


def _scores_fit(call: ast.Call, helpers: dict, model: str, labels: str, inputs: str, binds: Binds, lo: int) -> bool:
    """``call`` is a scoring helper given ``labels`` where one metric argument is built, and values built from
    ``model``'s learnt parameters (or its output for ``inputs``) where the other is."""
    for params, reached in helpers.get(call_name(call), ()):
        args = _call_args(call, params)
        for i, side in enumerate(reached):
            if not any(p in args and _norm(args[p]) == labels for p in side):
                continue
            others = set().union(*(r for j, r in enumerate(reached) if j != i)) - side
            if any(p in args and (_learnt(args[p], model) or _from_model(
                    args[p], model, inputs, binds, lo, call.lineno, {})) for p in others):
                return True
    return False


def helper_scored_fits(tree: ast.Module) -> list[StackedFit]:
    """Fits on held-out predictions or labels whose learnt parameters a scoring helper applies and scores on the same
    labels (see the module docstring)."""
    helpers = scoring_helpers(tree)
    if not helpers:
        return []
    out: list[StackedFit] = []
    for nodes in _scopes(tree):
        binds = _binds(nodes)
        held: dict[tuple[str, int, bool], bool] = {}
        calls = sorted((n for n in nodes if isinstance(n, ast.Call) and call_name(n) in helpers),
                       key=lambda n: n.lineno)
        for fit in nodes:
            if not (isinstance(fit, ast.Call) and isinstance(fit.func, ast.Attribute) and fit.func.attr == "fit" and
                    isinstance(fit.func.value, ast.Name) and len(fit.args) >= 2):
                continue
            inputs, labels = fit.args[0], fit.args[1]
            if not (_held_labels(labels) or _held_out(inputs, binds, held)) or not isinstance(
                    selection_base(labels), ast.Name):
                continue
            if validation_fit(tree, fit):
                continue  # the validation step of a three-way design, beside a scored test part (valparams.py)
            model = fit.func.value.id
            for call in (c for c in calls if c.lineno >= fit.lineno):
                if _scores_fit(call, helpers, model, _norm(labels), _norm(inputs), binds, fit.lineno):
                    out.append(StackedFit("trained_on_test", model, fit.lineno, fit.col_offset + 1, call.lineno))
                    break
    return out
