"""Early stopping and its score inside a tuning script's search objective, on a validation part, for
``tuned_on_test``.

A project splits its work into a tuning script and a training script. The tuning script cuts a training window and
a validation window (the test window lies later, in the project's configuration, and only the training script
scores it), runs a search whose objective early-stops on the validation part and returns its score, and writes the
best parameters to a file for the training script::

    def objective(trial, X_tr, y_tr, X_val, y_val):
        model = LGBMRegressor(num_leaves=trial.suggest_int("num_leaves", 15, 127))
        model.fit(X_tr, y_tr, eval_set=[(X_val, y_val)], callbacks=[lgb.early_stopping(50)])
        return mean_absolute_error(y_val, model.predict(X_val))     # the search's criterion

    study.optimize(lambda t: objective(t, X_tr, y_tr, X_val, y_val), n_trials=50)
    json.dump(study.best_params, open("best_params.json", "w"))      # handed to the training script

The score taken on the stopping rows after the stop (:mod:`.stopscores`) is what the search minimises: choosing
hyperparameters on a validation part is the intended practice (optuna's own examples score ``valid_x`` in the
objective; scikit-learn user guide 3.1, "the validation set"), and :mod:`.objectives` keeps such an objective
silent. The result of the script is the chosen parameters, written out for the model a test part measures later;
no score of it is a test estimate. Issue 17, wave 102 (a flight-delay project's ``tune_lightgbm.py`` and
``tune_xgboost.py``): reported as a stop whose rows were scored again as the script's result.

:class:`TuningStops` leaves that report out when all of:

* the training call lies inside a function an optimizer runs (:func:`~.objectives.objective_facts`), without folds
  (a cross-validating objective's fold scores are the other rule's business);
* its stopping rows are named for validation (``X_val``, ``dvalid``) and none for testing;
* the module writes the search's best parameters or trial to a file (``json.dump(study.best_params, f)``,
  ``joblib.dump(study.best_trial, ...)``, ``yaml.dump``, ``pickle.dump``, a frame's ``to_csv``/``to_json``).

A search whose best trial is only printed, an objective that scores a test-named part, or a stop outside any
objective keeps its report.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.objectives import objective_facts
from faultlib.pyflow.walk import walk_once

#: what a finished search keeps (optuna ``study.best_params``/``best_trial``, hyperopt's ``fmin`` result
#: bound to a name is followed by its use, skopt ``res.x``)
_BEST = frozenset({"best_params", "best_trial", "best_trials", "best_params_"})
#: calls that write their argument to a file
_WRITERS = frozenset({"dump", "safe_dump", "to_csv", "to_json", "write_text", "save"})


def _reads_best(node: ast.AST, kept: set[str]) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in _BEST or isinstance(n, ast.Name) and n.id in kept
               for n in ast.walk(node))


def writes_best(tree: ast.Module) -> bool:
    """The module writes a search's best parameters (or a name bound from them) to a file."""
    kept = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and _reads_best(n.value, set())
            for t in n.targets if isinstance(t, ast.Name)}
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WRITERS:
            if any(_reads_best(a, kept) for a in [n.func.value, *n.args, *(k.value for k in n.keywords)]):
                return True
    return False


def _validation_rows(rows: str) -> bool:
    names = [r.strip().split("[")[0] for r in rows.split(",") if r.strip()]
    return bool(names) and not any(vocab.looks_like_test(n) and not vocab.looks_like_validation(n) for n in names) \
        and any(vocab.looks_like_validation(n) for n in names)


class TuningStops:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring), placed before
    :class:`~faultlib.detect.data.leakage.earlystop.EarlyStops`."""

    tree: ast.Module
    _tuning_script: bool | None = None

    def _report_scored_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str, scored: str) -> None:
        if not self._in_tuning_objective(node, rows):
            super()._report_scored_stop(node, how, call, frame, rows, scored)  # type: ignore[misc]

    def _in_tuning_objective(self, node: ast.Call, rows: str) -> bool:
        if not _validation_rows(rows):
            return False
        if not any(f.start <= node.lineno <= f.end and not f.cv for f in objective_facts(self.tree)):
            return False
        if self._tuning_script is None:
            self._tuning_script = writes_best(self.tree)
        return self._tuning_script


__all__ = ["TuningStops", "writes_best"]
