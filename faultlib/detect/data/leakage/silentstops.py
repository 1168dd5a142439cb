"""Early stopping on the test rows whose result nobody sees, for the static leakage analysis.

``tuned_on_test`` means a *reported* score was chosen by the rows it is measured on: the test rows picked the
number of rounds, and the score shown for that model is the best of many looks at them. A booster can be given the
test part as its evaluation set and keep its best iteration there, with nothing shown at all::

    demo = CatBoostClassifier(iterations=5)
    demo.fit(train_pool, eval_set=test_pool, verbose=False)       # no training log
    print(demo.is_fitted(), demo.get_params())                   # no score, no prediction
    demo = CatBoostClassifier(iterations=15)                      # ... and the model is replaced

The log that prints the evaluation set's metric each round is off (CatBoost ``verbose=False`` / ``logging_level=
'Silent'``, XGBoost and LightGBM ``verbose_eval=False``, ``verbose=0``, ``silent=True``: the libraries' training
API references), and the fitted model is never asked for anything that shows its quality: no prediction, no score,
no ``best_score_``/``evals_result()``, no use as an argument, before its name is bound again or the program ends;
a model taken from a container (``for name, model in models.items()``, ``model = models[key]``) is read again
through any later read of that container.
No score exists for the test rows to have made optimistic, so :class:`SilentStops` leaves such a stop unreported
(issue 17, wave 47: a library tutorial's five-iteration demonstration fit, judged a false alarm). A log that is on
(the libraries' default) or any later read of the model keeps the report.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.walk import tree_fact, walk_once

#: keywords that switch a training call's per-round log off when false (or, for ``silent``, when true)
_LOG_KEYWORDS = frozenset({"verbose", "verbose_eval", "verbosity"})
#: methods and attributes of a fitted model that tell nothing of its quality
_QUIET_READS = frozenset({"is_fitted", "get_params", "get_param", "set_params", "get_all_params", "classes_",
                          "feature_names_", "get_feature_names", "n_features_in_"})


def _falsy(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in (False, 0, None)


def log_off(call: ast.Call) -> bool:
    """The training ``call`` switches its per-round log off (see the module docstring)."""
    for k in call.keywords:
        if k.arg in _LOG_KEYWORDS and _falsy(k.value):
            return True
        if k.arg == "silent" and isinstance(k.value, ast.Constant) and k.value.value is True:
            return True
        if k.arg == "logging_level" and isinstance(k.value, ast.Constant) and k.value.value == "Silent":
            return True
    return False


def _model_name(tree: ast.AST, call: ast.Call) -> str | None:
    """``model`` of ``model.fit(...)``, or the name ``bst = xgb.train(...)`` binds."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "fit" and isinstance(call.func.value, ast.Name):
        return call.func.value.id
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and node.value is call and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            return node.targets[0].id
    return None


def unseen_result(tree: ast.Module, call: ast.Call) -> bool:
    """The model ``call`` trains is never read after it but for :data:`_QUIET_READS`, until its name is bound again
    (source order; a read inside a loop or a function counts)."""
    name = _model_name(tree, call)
    if name is None:
        return False
    end = call.end_lineno or call.lineno
    rebound = min((n.lineno for n in walk_once(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(
        n.ctx, ast.Store) and n.lineno > end), default=None)
    quiet = tree_fact(tree, _quiet_reads)
    holders = _holders(tree, name)
    for n in walk_once(tree):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno > end and (
                rebound is None or n.lineno < rebound) and id(n) not in quiet:
            return False
        if isinstance(n, ast.Name) and n.id in holders and isinstance(n.ctx, ast.Load) and n.lineno > end:
            return False  # for clf in models.values(): clf.predict(X_test) -- the same fitted objects
    return True


def _holders(tree: ast.AST, name: str) -> set[str]:
    """The containers the model ``name`` is taken from: ``for name, model in models.items()`` and ``model =
    models[key]`` bind the very objects the container holds, so a later read of ``models`` reads the fitted model."""
    return set(tree_fact(tree, _taken_from).get(name, ())) - {name}


def _taken_from(tree: ast.AST) -> dict[str, frozenset[str]]:
    """For each name bound as a loop target or from a subscript, the containers it is taken from (one walk)."""
    out: dict[str, set[str]] = {}
    for node in walk_once(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            sources = {n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name)}
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    out.setdefault(n.id, set()).update(sources)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            root = node.value.value
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        out.setdefault(t.id, set()).add(root.id)
    return {k: frozenset(v) for k, v in out.items()}


def _quiet_reads(tree: ast.AST) -> frozenset[int]:
    """Ids of the names read only for :data:`_QUIET_READS` (``model.get_params()``)."""
    return frozenset(id(n.value) for n in walk_once(tree) if isinstance(n, ast.Attribute) and n.attr in _QUIET_READS)


class SilentStops:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring), placed before
    :class:`~faultlib.detect.data.leakage.earlystop.EarlyStops`."""

    tree: ast.Module

    def _report_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str) -> None:
        if not (log_off(node) and unseen_result(self.tree, node)):
            super()._report_stop(node, how, call, frame, rows)  # type: ignore[misc]


__all__ = ["SilentStops", "log_off", "unseen_result"]
