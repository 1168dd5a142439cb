"""Search objectives (optuna, hyperopt, scikit-optimize) as loops that try candidates and keep the best, for
``tuned_on_test``.

The rule: a function handed to a hyperparameter optimizer (``study.optimize(objective)``, hyperopt's
``fmin(fn=objective)``, scikit-optimize's ``gp_minimize(objective, space)`` and its siblings, bayes_opt's
``BayesianOptimization(f=objective, pbounds=...)`` then ``.maximize()``: its README, "the function to be optimized"
is ``f``; wave 102) is called once per
trial with a new candidate (``trial.suggest_*``, a point of the space), and the optimizer keeps the candidate whose
returned value is best (``study.best_params``). So its body is a loop that varies the model and chooses by what it
returns: :func:`objective_facts` describes it as :class:`~faultlib.detect.data.leakage.choices.LoopFacts` (from the
``def`` to its end, choosing at the optimizer's call), and the loop rule of
:mod:`~faultlib.detect.data.leakage.choices` applies unchanged. A model scored on the **test** rows inside it
(``roc_auc_score(y_test, model.predict(X_test))`` returned) lets the test rows choose the hyperparameters: the test
score then reported for the tuned model is the best of hundreds of looks at the same rows (Cawley & Talbot, JMLR
11, 2010; ASE'22's multi-test leakage).

Silent, as for a loop: scoring a part named for validation (``valid_x``: the optuna examples' own practice), an
objective that cross-validates (a ``for ... in cv.split(...)`` loop inside it: out-of-fold scores of the rows it
was given), and one that draws a new split at every trial (``train_test_split`` inside it without a fixed
``random_state``: a fresh random hold-out per candidate, a repeated random validation, so no fixed rows chose the
model; with ``random_state=0`` every trial scores the same rows and it counts). A function only defined, or handed
to anything else, is not an objective; one that draws from a trial and that nothing names at all never runs
(:func:`unrun_objectives`: the optimizer's call commented out), and the early-stopping rule skips its body.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.choices import LoopFacts
from faultlib.pyflow.walk import walk_once

#: optimizer calls and the argument that takes the objective: (position, keyword)
OPTIMIZERS = {"optimize": (0, "func"), "fmin": (0, "fn"), "gp_minimize": (0, "func"), "BayesianOptimization": (0, "f"),
              "forest_minimize": (0, "func"), "gbrt_minimize": (0, "func"), "dummy_minimize": (0, "func")}


def _called(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _function_name(node: ast.expr | None, bound: dict[str, ast.expr] | None = None) -> str | None:
    """``objective``, ``functools.partial(objective, X, y)``, ``lambda t: objective(t, X, y)``, a method
    ``self.objective``, or a name ``bound`` to one of these (``fn = lambda t: objective(t, X, y)``, then
    ``study.optimize(fn)``): the function run."""
    if isinstance(node, ast.Name) and bound and node.id in bound:
        return _function_name(bound[node.id]) or node.id
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr  # self.objective, tuner.objective: a method, found among the defs by its name
    if isinstance(node, ast.Call) and _called(node) == "partial" and node.args:
        return _function_name(node.args[0])
    if isinstance(node, ast.Lambda) and isinstance(node.body, ast.Call):
        return _function_name(node.body.func)
    return None


def _cross_validates(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Folds inside the objective, or a split drawn afresh at every trial (no fixed ``random_state``)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.For) and any(isinstance(c, ast.Call) and _called(c) == "split" for c in ast.walk(n.iter)):
            return True
        if isinstance(n, ast.Call) and _called(n) in vocab.SPLIT_FUNCTIONS:
            seed = next((k.value for k in n.keywords if k.arg == "random_state"), None)
            if seed is None or isinstance(seed, ast.Constant) and seed.value is None:
                return True
    return False


def objective_facts(tree: ast.Module) -> list[LoopFacts]:
    """A :class:`LoopFacts` for every module-level or nested function handed to an optimizer in ``tree``."""
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for n in walk_once(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
    bound = {t.id: n.value for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(
        n.value, (ast.Lambda, ast.Call)) for t in n.targets if isinstance(t, ast.Name)}
    out: list[LoopFacts] = []
    seen: set[int] = set()
    for call in (n for n in walk_once(tree) if isinstance(n, ast.Call) and _called(n) in OPTIMIZERS):
        position, keyword = OPTIMIZERS[_called(call)]
        arg = next((k.value for k in call.keywords if k.arg == keyword),
                   call.args[position] if len(call.args) > position else None)
        name = _function_name(arg, bound)
        for fn in defs.get(name or "", []):
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
            out.append(LoopFacts(fn.lineno, fn.end_lineno or fn.lineno, params, True, call.lineno,
                                 _cross_validates(fn)))
    return out


def unrun_objectives(tree: ast.Module) -> list[tuple[int, int]]:
    """The lines (first, last) of every function that draws its candidates from a trial (``trial.suggest_int(...)``
    on one of its parameters: optuna's objective signature) and that nothing in ``tree`` names: no optimizer
    receives it, no call or assignment mentions it. The study was switched off (``# study.optimize(objective)``
    commented out), so no trial runs and nothing its body computes (an early-stopped fold score it returns)
    reaches a result."""
    named = {n.id for n in walk_once(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)} | {
        n.attr for n in walk_once(tree) if isinstance(n, ast.Attribute)}  # not the key 'objective' of a params dict
    out: list[tuple[int, int]] = []
    for fn in walk_once(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name in named:
            continue
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.startswith("suggest_")
               and isinstance(n.func.value, ast.Name) and n.func.value.id in params for n in ast.walk(fn)):
            out.append((fn.lineno, fn.end_lineno or fn.lineno))
    return out


__all__ = ["OPTIMIZERS", "objective_facts", "unrun_objectives"]
