"""A search's chosen candidate scored again on the rows that chose it, for ``tuned_on_test``.

An optimizer objective (optuna's ``study.optimize(objective)``, hyperopt's ``fmin``, scikit-optimize's
``gp_minimize``: :mod:`.objectives`) that scores a fixed held-aside part is the intended practice when that part
only chooses: the part is a validation set, and the model is then judged elsewhere (on a test part, by
cross-validation). When the script then builds the chosen candidate (``XGBRegressor(**study.best_params)``), refits
it and scores it **on the same part** (``model.predict(X_eval)`` after the study), that score is the one the script
reports for the tuned model, and it is the best of all the trials' looks at those rows: optimistic, by the same
selection bias as a search on the test rows (Cawley & Talbot, "On over-fitting in model selection and subsequent
selection bias in performance evaluation", JMLR 11, 2010, section 4; optuna's documentation keeps a separate test
set for the final estimate). So the held-aside part counts as the test rows of that objective: ``tuned_on_test`` at
the objective's score, as for a search scored on a part named for testing (house, wave 82: as wave 51's tuned model
reported on its own validation split). The sibling of :mod:`.rescored`, where a ``GridSearchCV``'s choice is
cross-validated again on the rows it searched.

:func:`rescored_parts` gives, for each objective (the line of its ``def``), the names of the rows it scores that a
model built from the optimizer's result scores again after the optimizer call (outside the objective). A model
built from the result: an assignment after the call whose value reads the study's ``best_params``/``best_trial``/
``best_trials`` (or the name ``fmin``/``gp_minimize`` returned), directly or through names bound from it, or a
``set_params`` call that reads it. Silent: no such refit; a refit scored on other rows (a test part, a test file, the
folds of a cross-validation); an objective that cross-validates (no fixed part chose).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.objectives import OPTIMIZERS
from faultlib.pyflow.walk import walk_once

#: calls that score a model on the rows they are given (the first argument)
_SCORING = frozenset({"predict", "predict_proba", "decision_function", "score", "evaluate"})
#: attributes of an optuna study (or a scikit-learn search) that hold the chosen candidate
_BEST = frozenset({"best_params", "best_trial", "best_trials", "best_params_", "best_estimator_"})


def _called(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _root(node: ast.expr | None) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _scored_names(nodes: list[ast.AST]) -> dict[str, set[str]]:
    """``{model name: names of the rows it scores}`` over ``nodes`` (``m.predict(X_eval)``)."""
    out: dict[str, set[str]] = {}
    for n in nodes:
        if isinstance(n, ast.Call) and _called(n) in _SCORING and isinstance(n.func, ast.Attribute) and n.args:
            model, rows = _root(n.func.value), _root(n.args[0])
            if model and rows:
                out.setdefault(model, set()).add(rows)
    return out


def _reads(node: ast.AST, names: set[str], studies: set[str]) -> bool:
    """``node`` reads one of ``names`` or a chosen-candidate attribute of one of ``studies``."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in names:
            return True
        if isinstance(n, ast.Attribute) and n.attr in _BEST and _root(n.value) in studies:
            return True
    return False


def rescored_parts(tree: ast.Module, facts: list[Any]) -> dict[int, frozenset[str]]:
    """For each objective of ``facts`` (:class:`~.choices.LoopFacts` of :func:`.objectives.objective_facts`: ``start``
    its ``def``, ``chooses`` the optimizer's call): the rows it scores that the chosen candidate is scored on again."""
    nodes = list(walk_once(tree))
    defs = {n.lineno: n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    optimizer_calls = [n for n in nodes if isinstance(n, ast.Call) and _called(n) in OPTIMIZERS]
    assigns = [n for n in nodes if isinstance(n, ast.Assign)]
    out: dict[int, frozenset[str]] = {}
    for f in facts:
        fn = defs.get(f.start)
        if fn is None or f.cv or not f.chooses:
            continue
        inside = {id(n) for n in ast.walk(fn)}
        scored = set().union(*_scored_names(list(ast.walk(fn))).values()) if fn else set()
        studies: set[str] = set()
        results: set[str] = set()
        for call in (c for c in optimizer_calls if c.lineno == f.chooses):
            if _called(call) == "optimize" and isinstance(call.func, ast.Attribute):
                studies |= {_root(call.func.value)} - {None}  # type: ignore[arg-type]
            results |= {t.id for a in assigns if a.value is call for t in a.targets if isinstance(t, ast.Name)}
        if not (studies or results) or not scored:
            continue
        after = [n for n in nodes if getattr(n, "lineno", 0) > f.chooses and id(n) not in inside]
        chosen = set(results)
        for _ in range(3):  # params = study.best_params; model = XGBRegressor(**params)
            for a in (n for n in after if isinstance(n, ast.Assign)):
                if _reads(a.value, chosen, studies):
                    chosen |= {t.id for t in a.targets if isinstance(t, ast.Name)}
            chosen |= {_root(c.func.value) for c in after if isinstance(c, ast.Call) and _called(c) == "set_params"
                       and isinstance(c.func, ast.Attribute) and _reads(c, chosen, studies)} - {None}  # type: ignore
        again = set().union(*(rows for model, rows in _scored_names(after).items() if model in chosen))
        if scored & again:
            out[f.start] = frozenset(scored & again)
    return out


__all__ = ["rescored_parts"]
