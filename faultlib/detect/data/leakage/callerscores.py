"""The stopping rows scored by the caller of the function that trains, for :mod:`.stopscores`.

A competition script moves each fold's training into a helper and scores the fold where it calls it::

    def train_lightgbm(X_train, y_train, X_valid, y_valid, X_test):
        model = lgb.LGBMClassifier(**params)
        model.fit(X_train, y_train, eval_set=[(X_valid, y_valid)], early_stopping_rounds=200)
        return model.predict_proba(X_test)[:, 1], model.predict_proba(X_valid)[:, 1]

    for tr, va in folds.split(X, y):
        pred, pred_valid = train_lightgbm(X.iloc[tr], y.iloc[tr], X.iloc[va], y.iloc[va], X_test)
        scores.append(roc_auc_score(y.iloc[va], pred_valid))          # the fold's reported score

or an estimator class whose ``fit_(X_train, y_train, X_eval, y_eval)`` early-stops on ``X_eval`` while its
``kfold_fit`` scores ``self.evaluate_(y_valid, self.predict_(X_valid))`` on the rows it handed over. The stopping
rows are the function's parameters; the score that reads them again is in the caller, after the call. The
function's body alone shows no score of them (the language reference, 6.3.4 "Calls": a call binds the arguments
to the parameters, and the caller receives what ``return`` gives back).

:class:`CallerScores` (a mixin of :class:`.stopscores.StopScores`) follows that one step: for a training call
inside a function whose stopping rows include its parameters, each call of the function (by its name, or as a
method ``self.name(...)``/``obj.name(...)``) maps those parameters to the caller's arguments and the values the
function returns computed from the stopping rows (a prediction of them) to the names the caller assigns them to;
a score after the call, in the caller's own function (or module), that reads a returned prediction of the stopping
rows (or, when the function returns none, the caller's arguments for them) is the rows' score taken again. A call
in a branch a module flag switches off (``if MODEL_TYPE == 'catboost':`` under ``MODEL_TYPE = 'lightgbm'``,
:mod:`.moduleflags`) never runs and is not followed.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.moduleflags import module_switches
from faultlib.pyflow.walk import scope_nodes, tree_fact, walk_once


def _positional(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]


def _calls_by_name(tree: ast.Module) -> dict[str, tuple[tuple[ast.Call, ast.stmt | None], ...]]:
    """Every call of the module by the name it calls (``f(...)``, ``obj.f(...)``), each with the assignment it is the
    value of; one walk per module (:func:`~faultlib.pyflow.walk.tree_fact`)."""
    assigned: dict[int, ast.stmt] = {id(n.value): n for n in walk_once(tree) if isinstance(n, ast.Assign)}
    out: dict[str, list[tuple[ast.Call, ast.stmt | None]]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name is not None:
                out.setdefault(name, []).append((node, assigned.get(id(node))))
    return {k: tuple(v) for k, v in out.items()}


def _calls_of(tree: ast.Module, fn: ast.AST) -> list[tuple[ast.Call, ast.stmt | None]]:
    """The calls of ``fn`` by its name outside its own body, each with the assignment it is the value of."""
    name, start, end = fn.name, fn.lineno, fn.end_lineno or fn.lineno  # type: ignore[attr-defined]
    return [(c, s) for c, s in tree_fact(tree, _calls_by_name).get(name, ()) if not start <= c.lineno <= end]


class CallerScores:
    """The caller's score of a helper's stopping rows (see the module docstring); mixed into ``StopScores``."""

    def _returned_positions(self, fn: ast.AST, rows: set[str]) -> set[int | None]:
        """The positions of ``fn``'s returned tuple computed from ``rows`` (``None``: the whole value)."""
        out: set[int | None] = set()
        for ret in (n for n in scope_nodes(fn) if isinstance(n, ast.Return) and n.value is not None):
            value = ret.value
            items = list(enumerate(value.elts)) if isinstance(value, ast.Tuple) else [(None, value)]
            for i, item in items:
                if self._rows(item, 3, ret.lineno) & rows:  # type: ignore[attr-defined]
                    out.add(i)
        return out

    def caller_scores(self, call: ast.Call, rows: set[str]) -> list[ast.AST]:
        """The scores, in the callers of the function around ``call``, of the stopping ``rows`` that are the
        function's parameters (see the module docstring), in line order; empty when there are none."""
        fn = self._scopes.at(call.lineno)  # type: ignore[attr-defined]
        if fn is None:
            return []
        params = _positional(fn)
        method = bool(params) and params[0] in ("self", "cls")
        stopping = rows & set(params)
        if not stopping:
            return []
        returned = self._returned_positions(fn, rows)
        out: list[ast.AST] = []
        for site, stmt in _calls_of(self.tree, fn):  # type: ignore[attr-defined]
            if any(first <= site.lineno <= last for first, last in self._switched_off()):
                continue  # if MODEL_TYPE == 'catboost': train_catboost(...) under MODEL_TYPE = 'lightgbm'
            given = params[1:] if method and isinstance(site.func, ast.Attribute) else params
            args = {p: a for p, a in zip(given, site.args)} | {k.arg: k.value for k in site.keywords if k.arg}
            handed = {a.id if isinstance(a, ast.Name) else ast.unparse(a)
                      for p, a in args.items() if p in stopping}  # X_valid, X.iloc[va]: the rows as scores read them
            back = self._assigned_back(stmt, returned)
            wanted = back if returned else handed
            if not wanted:
                continue
            scope, end = self._scopes.at(site.lineno), site.end_lineno or site.lineno  # type: ignore[attr-defined]
            for node, scored in self._events:  # type: ignore[attr-defined]
                if node.lineno <= end or self._scopes.at(node.lineno) is not scope or not scored:  # type: ignore[attr-defined]
                    continue
                if {r for a in scored for r in self._rows(a, 3, node.lineno)} & wanted:  # type: ignore[attr-defined]
                    out.append(node)
        return sorted(out, key=lambda n: n.lineno)

    def _switched_off(self) -> list[tuple[int, int]]:
        """The lines of the branches a module flag switches off (:mod:`.moduleflags`): a call there never runs."""
        if self._off is None:
            switches = module_switches(self.tree, strings=True)
            self._off = [(s.lineno, s.end_lineno or s.lineno) for n in walk_once(self.tree)
                         if isinstance(n, ast.If) and id(n.test) in switches
                         for s in (n.orelse if switches[id(n.test)].true else n.body)]
        return self._off

    _off: list[tuple[int, int]] | None = None

    @staticmethod
    def _assigned_back(stmt: ast.stmt | None, returned: set[int | None]) -> set[str]:
        """The names the caller's assignment ``stmt`` binds to the returned positions ``returned``."""
        if stmt is None or not returned:
            return set()
        out: set[str] = set()
        for target in stmt.targets:  # type: ignore[attr-defined]
            if isinstance(target, (ast.Tuple, ast.List)):
                out |= {e.id for i, e in enumerate(target.elts) if i in returned and isinstance(e, ast.Name)}
            elif isinstance(target, ast.Name):
                out.add(target.id)
        return out

    tree: ast.Module


__all__ = ["CallerScores"]
