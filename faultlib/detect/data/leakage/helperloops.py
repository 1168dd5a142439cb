"""A best-of loop written in a helper and handed the test labels by its caller (``tuned_on_test``).

:mod:`.scoreloops` reads a loop that scores candidates (a cut-off, blending weights) against labels named for
testing and keeps the best. Anomaly and fraud code puts that loop in a function of its own and hands it the
labels::

    def optimize_threshold(scores, true_labels):
        best_f1, best = 0, 0
        for t in np.linspace(min(scores), max(scores), 100):
            f1 = f1_score(true_labels, (scores > t).astype(int))
            if f1 > best_f1:
                best_f1, best = f1, t
        return best

    cut = optimize_threshold(test_scores, y_test)
    print(f1_score(y_test, test_scores > cut))

Inside the helper the labels are a parameter, so the loop alone chooses on whatever it is given (a validation part
is the intended use); the call that hands it the test labels makes the choice on the test rows, and the score at
the kept cut-off on those rows is the best of many (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis,
Kästner, ASE 2022; issue 17 wave 85: an LSTM-autoencoder anomaly detector whose F1-optimal threshold is swept on
the test windows and its F1 reported).

:func:`handed_score_choices` finds, syntactically, a function whose ``for`` loop scores (a call with two or more
arguments) one of the function's parameters against a value computed in the loop and keeps the best result (the
tests of :mod:`.scoreloops`), and a call of that function, by its name, whose argument for that parameter is named
for the test labels (``y_test``; never a name for validation). It is reported at that call. A loop that fits models
is :mod:`.choices`' business, and a helper only handed validation or training labels stays silent.

The same choice is written without a running best: each candidate's score goes into a list and the candidate at
the list's ``argmax`` is returned (issue 17 wave 90: a crypto forecaster's ``get_cutoffs(y_true, yhat_prob)`` and
``get_max_profit_cutoff``, whose scores are computed by hand, ``np.sum(preds == y_true) / len(y_true)``, or by a
profit helper handed the labels among other arguments)::

    def best_cutoff(y_true, proba):
        grid, accuracies = np.arange(0, 1.01, 0.01), []
        for c in grid:
            accuracies.append(np.mean((proba >= c) == y_true))
        return grid[np.argmax(accuracies)]

:func:`_collected_params` reads it: a statement of the loop whose value reads a parameter and a value computed in
the loop, and whose result (or the value itself) is appended to a list that a chooser (``argmax``, ``idxmax``...,
or ``L.index(max(L))``) reads after the loop. Which arguments hand the held-out rows (labels named for testing, the
rows of a cross-validation fold's test part, such labels gathered in a frame) is :mod:`.heldlabels`' answer: a
cut-off chosen on each fold's held-out rows and scored on them makes the cross-validated score the best of many too.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.curvecode import _CHOOSERS
from faultlib.detect.data.leakage.scoreloops import (
    fits_models,
    keeps_best,
    loops_around,
    names_in,
)
from faultlib.detect.data.leakage.heldlabels import gathered_labels, held_labels, split_test_indices
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

__all__ = ["handed_score_choices"]


def _chooser_params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int, int]:
    """Positions of ``fn``'s parameters (without ``self``) that a best-of loop in it scores as labels -> the line of
    the outermost such loop."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    around = loops_around(fn)
    out: dict[int, int] = {}
    for stmt in (n for n in ast.walk(fn) if isinstance(n, ast.Assign) and id(n) in around):
        call = stmt.value
        if not (isinstance(call, ast.Call) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        args = list(call.args[:2])
        if len(args) < 2:
            continue
        loops = around[id(stmt)]
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "fit", "fit_transform", "train", "fit_predict") for n in ast.walk(loops[0])):
            continue  # candidates are models: choices.py
        derived = set().union(*(names_in(lp.target) for lp in loops))
        for s in (n for n in ast.walk(loops[0]) if isinstance(n, ast.Assign) and n.lineno < stmt.lineno):
            derived |= {t.id for t in s.targets if isinstance(t, ast.Name)}
        for i, a in enumerate(args):
            other = args[1 - i]
            if isinstance(a, ast.Name) and a.id in params and names_in(other) & derived and not names_in(
                    other) & {a.id} and keeps_best(loops[-1], stmt.targets[0].id):
                out.setdefault(params.index(a.id), loops[0].lineno)
    for position, line in _collected_params(fn, params).items():
        out.setdefault(position, line)
    return out


def _chosen_after(fn: ast.AST, lists: set[str], after: int) -> bool:
    """A chooser reads one of ``lists`` after line ``after``: ``np.argmax(scores)``, ``pd.Series(s).idxmax()``,
    ``scores.index(max(scores))``."""
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call) or n.lineno <= after:
            continue
        if call_name(n) in _CHOOSERS and names_in(n) & lists:
            return True
        if isinstance(n.func, ast.Attribute) and n.func.attr == "index" and isinstance(n.func.value, ast.Name) and \
                n.func.value.id in lists and any(isinstance(a, ast.Call) and call_name(a) in ("max", "min")
                                                 for a in n.args):
            return True
    return False


def _collected_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str]) -> dict[int, int]:
    """Positions of ``fn``'s parameters that a loop scores each candidate against, collecting the scores in a list
    whose best a chooser picks after the loop (see the module docstring) -> the line of the outermost such loop."""
    out: dict[int, int] = {}
    for loop in (n for n in ast.walk(fn) if isinstance(n, ast.For)):
        if fits_models(loop):
            continue  # candidates are models: choices.py
        derived = names_in(loop.target)
        statements = sorted((n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.Expr))),
                            key=lambda n: n.lineno)
        scored: dict[str, set[str]] = {}  # a score's name -> the parameters it was scored against
        lists: dict[str, set[str]] = {}  # a list of scores -> the parameters
        for s in statements:
            value = s.value
            reads = names_in(value)
            against = {p for p in reads & set(params) if p not in derived and reads - {p} & derived}
            against |= set().union(*(scored[r] for r in reads if r in scored)) if reads & set(scored) else set()
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    derived |= names_in(t)
                    if against:
                        for name in names_in(t):
                            scored[name] = against
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr == "append" and isinstance(value.func.value, ast.Name) and value.args:
                kept = names_in(value.args[0])
                given = {p for p in kept & set(params) if kept - {p} & derived}
                given |= set().union(*(scored[r] for r in kept if r in scored)) if kept & set(scored) else set()
                if given:
                    lists.setdefault(value.func.value.id, set()).update(given)
        end = loop.end_lineno or loop.lineno
        for name, given in lists.items():
            if _chosen_after(fn, {name}, end):
                for p in given:
                    out.setdefault(params.index(p), loop.lineno)
    return out


def handed_score_choices(tree: ast.AST) -> list[tuple[int, int]]:
    """``(line of the call handing the test labels, line of the helper's loop)`` for each such call (see the module
    docstring), in order."""
    helpers = {fn.name: _chooser_params(fn) for fn in walk_once(tree)
               if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))}
    helpers = {name: found for name, found in helpers.items() if found}
    if not helpers:
        return []
    params = {fn.name: [a.arg for a in fn.args.posonlyargs + fn.args.args] for fn in walk_once(tree)
              if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name in helpers}
    held = split_test_indices(tree)
    gathered = gathered_labels(tree, held)
    out: list[tuple[int, int]] = []
    for call in walk_once(tree):
        if not isinstance(call, ast.Call):
            continue
        name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(
            call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self" \
            else None
        if name not in helpers:
            continue
        names = params[name][1:] if params[name][:1] in (["self"], ["cls"]) else params[name]
        for position, loop in helpers[name].items():
            given = call.args[position] if position < len(call.args) else next(
                (k.value for k in call.keywords if k.arg == names[position]), None)
            if given is not None and (held_labels(given, held) or isinstance(given, ast.Name) and any(
                    name == given.id and line < call.lineno and first <= call.lineno <= last
                    for name, line, first, last in gathered)):
                out.append((call.lineno, loop))
                break
    return sorted(set(out))
