"""Early stopping and best-model choice on the held-out rows (``tuned_on_test``), for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. The rule:

A model is trained with an evaluation set (``eval_set=``, ``validation_data=``, ``valid_sets=``, ``evals=``,
xgboost's fourth positional: :data:`~faultlib.detect.data.leakage.evalsets.EVAL_KEYWORDS`) whose rows are the
**test part** of the script (the held-out part of a split, or rows named for testing: ``X_test``), **and** the
training uses that set's score to choose the model:

* ``early_stopping_rounds=`` (XGBoost, LightGBM and CatBoost, in ``fit``/``train`` or, XGBoost >= 1.6, in the
  model's constructor): boosting stops at the round after which the evaluation score stopped improving, and
  the model keeps that number of rounds (their API references: "the model will train until the validation
  score stops improving");
* a callback that stops or keeps the best by it: Keras ``EarlyStopping`` (stops when ``val_loss``, its default
  ``monitor``, stops improving; with ``restore_best_weights`` it keeps the best epoch's weights), LightGBM
  ``early_stopping(...)``, XGBoost ``callback.EarlyStopping``, and ``ModelCheckpoint(save_best_only=True)`` when the
  script loads a model or weights back (``load_model``, ``load_weights``: the kept best is what it then uses);
* ``patience=N`` in a ``fit`` with an evaluation set (pytorch-tabnet's ``TabNetModel.fit``: "Number of
  consecutive epochs without improvement before performing early stopping ... best weights from best epoch will
  automatically be loaded at the end of fit");
* CatBoost's ``use_best_model``, which is **on by default** when an ``eval_set`` is given (CatBoost's ``fit``
  reference: "True if a validation set is input"): the model is cut to its best iteration on that set.
* a Hugging Face ``Trainer`` whose ``TrainingArguments`` set ``load_best_model_at_end=True`` (or that has an
  ``EarlyStoppingCallback``): ``trainer.train()`` keeps the checkpoint with the best metric on ``eval_dataset``
  (:mod:`~faultlib.detect.data.leakage.hftrainer`); reported at the ``train()`` call.

Then the number of rounds or epochs (a hyperparameter) was chosen by the test score: candidates were scored on
the test rows and the best kept, exactly what a loop over ``n_estimators`` keeping the best test score does
(:mod:`~faultlib.detect.data.leakage.choices`). The test score the script then reports (``predict(X_test)``, the
history's ``val_accuracy``, the booster's printed metric) is the best of many looks at the same rows, so it is
optimistic (Cawley & Talbot, JMLR 11, 2010, "On over-fitting in model selection and subsequent selection bias
in performance evaluation"; ASE'22's multi-test leakage). Reported once per training call, at its line.

The same holds on a **validation part or a cross-validation fold** when its own score, taken after the stopping,
is what the script reports and no other held-out rows are scored (the house decision since wave 70 of issue 17,
which replaced an earlier silence here): ``for tr, va in kf.split(X): m.fit(X[tr], y[tr], eval_set=[(X[va],
y[va])], early_stopping_rounds=50); scores.append(auc(y[va], m.predict(X[va])))``, or a Keras network stopped on
``validation_data=(X_val, y_val)`` whose ``evaluate(X_val, y_val)`` is printed. The stopping point is a
hyperparameter chosen on those rows, so the score measured on them is a selection score, not an estimate of new
data (Cawley & Talbot 2010, section 5). :mod:`~faultlib.detect.data.leakage.stopscores` finds that score (a
metric or ``evaluate``/``score`` on the stopping rows or on what was computed from them, the booster's
``best_score``) and makes sure nothing else held out is scored; reported at the training call.

Silent (the look-alikes):

* the evaluation set is a **validation** part: a split of a training part (``train_test_split(X_train)``) or rows
  the script names for validation or evaluation (``X_val``, ``dvalid``, ``xgvalid``, ``X_dev``, ``ds_eval``; the
  names of the evaluation-set argument and of what it was assigned from, three assignments deep, and the tags it
  is given, ``[(dmatrix, 'valid')]`` or ``valid_names=['valid']``; so a ``watchlist`` of ``(dvalid, 'valid')`` is
  one), and the script scores a separate test part (that later score is the reported one: choosing on the
  validation rows is the intended practice), or does not score the stopping rows again (a competition notebook
  that only predicts the leaderboard's unlabelled test file);
* the evaluation set only **prints** the metric (no early stopping, no best-model callback, CatBoost with
  ``use_best_model=False``): the model does not depend on those rows; nor does it when the callback watches a
  training metric (``EarlyStopping(monitor='loss')``) or a best checkpoint is written and never loaded back;
* the training rows include the evaluation rows (``fit(all_rows, eval_set=[(part, ...)])``): nothing is held out,
  so no held-out score is chosen (a different mistake);
* a cross-validation fold's held-out part (``for tr, va in kf.split(X)``), even named ``test``, under the same
  condition as a validation part: not scored again after the stopping (fold models kept for an ensemble), or a
  separate test part scored; so is the same body moved into a function that receives the fold as two index
  arrays into one frame (:mod:`~faultlib.detect.data.leakage.foldbodies`);
* rows scored after the stopping that are not the stopping rows (the training rows, another split);
* the training rows themselves in the list (``valid_sets=[dtrain, dvalid]``): they tell nothing.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.boosterparams import params_stop
from faultlib.detect.data.leakage.callbackhelpers import functions, returned_values
from faultlib.detect.data.leakage.evalsets import EVAL_KEYWORDS, _items
from faultlib.detect.data.leakage.foldbodies import fold_body
from faultlib.detect.data.leakage.hftrainer import best_checkpoint
from faultlib.detect.data.leakage.objectives import unrun_objectives
from faultlib.detect.data.leakage.spread import spread_key
from faultlib.detect.data.leakage.stopscores import StopScores
from faultlib.detect.data.leakage.testparts import choosing_named, held_out
from faultlib.detect.data.leakage.trainerscores import rescored_alone
from faultlib.detect.data.leakage.values import Data, Est, covers, parts
from faultlib.detect.data.leakage.watchedsets import LAST_SET_LIBRARIES, last_value, last_watched
from faultlib.detect.data.leakage.wrapped import scoped_bindings, wrapped_test_names
from faultlib.findings import Finding, Severity
from faultlib.pyflow.values import UNKNOWN, Container
from faultlib.pyflow.walk import walk_once

#: keywords that stop boosting early on the evaluation sets (lightgbm also spells it without the ``s``)
STOP_KEYWORDS = ("early_stopping_rounds", "early_stopping_round")
#: callbacks that stop at, or keep, the best evaluation score (Keras, LightGBM, XGBoost)
STOP_CALLBACKS = frozenset({"EarlyStopping", "early_stopping"})
#: ... and the one that keeps the best only when told (``ModelCheckpoint(save_best_only=True)``)
CHECKPOINTS = frozenset({"ModelCheckpoint"})
_BOOSTER_TRAIN = ("xgboost", "lightgbm", "catboost")
#: the training calls that take an evaluation set: ``fit``, and Keras' ``fit_generator`` (Keras 2 API reference,
#: ``Model.fit_generator(generator, ..., validation_data=None, ...)``, deprecated in TensorFlow 2.1 for ``fit``
#: but common in older notebooks), whose first argument is a generator of the training batches
FIT_METHODS = frozenset({"fit", "fit_generator"})
#: calls that load a saved model or weights back (a best checkpoint is then what the script uses)
_LOADERS = frozenset({"load_model", "load_weights"})




def _call_name(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


#: a monitored quantity named for the evaluation rows: Keras prefixes their metrics with ``val_`` ("val_loss", its
#: ``monitor`` default); a custom callback that scores ``validation_data`` itself names its entry in ``logs`` as it
#: likes, usually with the same word: ``logs['norm_gini_val']``, ``logs['roc_auc_valid']``
_EVALUATION_MONITOR = re.compile(r"(^|_)(val|valid|validation|eval|dev)(_|$|\d)", re.IGNORECASE)


def _watches_evaluation(call: ast.Call) -> bool:
    """The callback's ``monitor`` is an evaluation-set metric (``val_loss``, its Keras default; ``norm_gini_val``,
    the evaluation rows' score a custom callback writes into ``logs``), not a training one (``loss``, ``acc``)."""
    monitor = _keyword(call, ("monitor",))
    return not (isinstance(monitor, ast.Constant) and isinstance(monitor.value, str)
                and not monitor.value.startswith("val") and not _EVALUATION_MONITOR.search(monitor.value))


def _chooses(node: ast.expr | None, bindings: dict[str, list[ast.expr]], loads: bool, depth: int = 3,
             defs: dict[str, ast.FunctionDef] | None = None) -> str | None:
    """The callback in ``node`` (a list, a call, a name assigned one, a helper's call that returns one:
    :mod:`.callbackhelpers`, ``defs`` the program's functions) that stops or keeps the best by the evaluation set,
    in words; ``loads``: the module loads a saved model or weights back."""
    if node is None or depth < 0:
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return next((c for c in (_chooses(e, bindings, loads, depth, defs) for e in node.elts) if c), None)
    if isinstance(node, ast.BinOp):  # callbacks=base + [es]
        return _chooses(node.left, bindings, loads, depth, defs) or _chooses(node.right, bindings, loads, depth, defs)
    if isinstance(node, ast.Name):
        return next((c for c in (_chooses(v, bindings, loads, depth - 1, defs) for v in bindings.get(node.id, []))
                     if c), None)
    if isinstance(node, ast.Call) and _watches_evaluation(node):
        name = _call_name(node)
        if name in STOP_CALLBACKS:
            return f"{name}(...)"
        if loads and name in CHECKPOINTS and any(k.arg == "save_best_only" and _true(k.value) for k in node.keywords):
            return f"{name}(save_best_only=True), loaded back,"
    if isinstance(node, ast.Call) and defs:  # callbacks=make_callbacks(path): what the helper returns
        found = next((c for c in (_chooses(r, bindings, loads, depth - 1, defs) for r in returned_values(node, defs))
                      if c), None)
        return found
    return None


def _keyword(node: ast.Call, names: tuple[str, ...]) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg in names), None)


def _stops(node: ast.Call, keywords: tuple[str, ...] = STOP_KEYWORDS) -> bool:
    """``early_stopping_rounds=N`` (or another of ``keywords``) with N not ``None``/0."""
    value = _keyword(node, keywords)
    return value is not None and not (isinstance(value, ast.Constant) and value.value in (None, 0, False))




def _spread_stops(node: ast.Call, tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> bool:
    """``early_stopping_rounds`` (not ``None``/0) given through a spread dictionary (:mod:`.spread`)."""
    if not any(k.arg is None for k in node.keywords):
        return False
    value = next((v for v in (spread_key(node, key, tree, bindings) for key in STOP_KEYWORDS) if v is not None), None)
    return value is not None and not (isinstance(value, ast.Constant) and value.value in (None, 0, False))


class EarlyStops:
    """``tuned_on_test`` by early stopping or a best-model callback on the test rows (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        out = super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]
        if isinstance(out, Est) and out.category == "model":
            how = self._stop_rule(node, catboost=False)
            if how:  # XGBRegressor(early_stopping_rounds=10): every fit with an eval set stops on it
                out.options["stops"] = how
            if ref.module.split(".")[0] == "catboost" or ref.last.startswith("CatBoost"):
                use_best = _keyword(node, ("use_best_model",)) or \
                    spread_key(node, "use_best_model", self.tree, self._bindings)  # CatBoostClassifier(**params)
                if not (isinstance(use_best, ast.Constant) and use_best.value is False):
                    out.options["use_best_model"] = True
        elif isinstance(out, Est) and out.category == "search":
            inner = args[0] if args else kwargs.get("estimator")  # GridSearchCV(XGBClassifier(callbacks=[es]))
            if isinstance(inner, Est):
                out.options.update({k: inner.options[k] for k in ("stops", "use_best_model") if k in inner.options})
                out.options["last_set"] = inner.cls.startswith(("XGB", "CatBoost"))
        elif ref.last == "train" and ref.module.split(".")[0] in _BOOSTER_TRAIN:
            how = self._stop_rule(node, catboost=False) or params_stop(  # lgb.train({'early_stopping_round': 50})
                ref.module.split(".")[0], node, args[0] if args else kwargs.get("params"), self.tree, self._bindings)
            if how:
                self._stopped_on([*args[3:4], *(kwargs.get(k) for k in EVAL_KEYWORDS)], node, how, ref.last, frame,
                                 args[1] if len(args) > 1 else kwargs.get("train_set", kwargs.get("dtrain")),
                                 last=ref.module.split(".")[0] in LAST_SET_LIBRARIES)
        return out

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        spread = self._spread_sets(node, frame) if name in FIT_METHODS else {}
        if name in FIT_METHODS and (any(k in kwargs for k in EVAL_KEYWORDS) or spread):
            est = receiver if isinstance(receiver, Est) else None
            how = self._stop_rule(node, catboost=bool(est and est.options.get("use_best_model")))
            if not how and est is not None:
                how = est.options.get("stops")
            if how:
                label = est.cls if est else ast.unparse(node.func.value) if isinstance(node.func, ast.Attribute) \
                    else "model"
                self._stopped_on([kwargs.get(k) for k in EVAL_KEYWORDS] + [v for _, v in spread.values()], node, how,
                                 f"{label}.fit", frame, args[0] if args else kwargs.get("X", kwargs.get("x")),
                                 sets=[k.value for k in node.keywords if k.arg in EVAL_KEYWORDS] +
                                 [e for e, _ in spread.values()],
                                 last=bool(est and (est.cls.startswith(("XGB", "CatBoost")) or
                                                    est.options.get("last_set"))))
        elif name == "train" and not args and isinstance(node.func, ast.Attribute):
            found = best_checkpoint(node.func.value, self.tree, self._bindings)  # trainer.train() (hftrainer.py)
            if found:
                trainer, evaluated, how = found
                call = f"{ast.unparse(trainer.func)}.train"
                self._stopped_on([], trainer, how, call, frame, None, sets=[evaluated], at=node)
                if node.lineno not in self._stopped and rescored_alone(node.func.value, self.tree) and not any(
                        f.cv and f.start <= node.lineno <= f.end for f in self._loop_facts):
                    # trainer.evaluate() re-reports the best checkpoint's score on that set (trainerscores.py)
                    self._report_stop(node, how, call, frame, f"{ast.unparse(evaluated)}, the only rows "
                                      f"{ast.unparse(node.func.value)}.evaluate() scores")
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _spread_sets(self, node: ast.Call, frame: Any) -> dict[str, tuple[ast.expr, Any]]:
        """The evaluation sets a ``fit`` receives through a spread dictionary (``search.fit(X, y, **fit_params)``
        with ``fit_params = {'eval_set': [(X_test, y_test)], ...}``: Python passes each key as a keyword, language
        reference "Calls"; scikit-learn's searches hand ``**fit_params`` on to every candidate's ``fit``, API
        reference ``GridSearchCV.fit``): keyword -> (its expression where the dictionary is written, its value)."""
        if not any(k.arg is None for k in node.keywords):
            return {}
        values: dict[str, Any] = {}
        for k in node.keywords:
            if k.arg is None:
                spread = self._expr(k.value, frame)  # type: ignore[attr-defined]  # (a name: no side effect)
                if isinstance(spread, Container):
                    values.update(spread.items)
        found = {}
        for key in EVAL_KEYWORDS:
            expr = spread_key(node, key, self.tree, self._bindings)
            if expr is not None:
                found[key] = (expr, values.get(key, UNKNOWN))
        return found

    def _stop_rule(self, node: ast.Call, *, catboost: bool) -> str | None:
        """How the call chooses by its evaluation set, in words, or ``None``."""
        if _stops(node) or _spread_stops(node, self.tree, self._bindings):
            return "early_stopping_rounds"
        if _stops(node, ("patience",)):
            return "patience (pytorch-tabnet: stops and loads the best epoch's weights)"
        if self._loads_back is None:
            self._loads_back = any(isinstance(n, ast.Call) and _call_name(n) in _LOADERS for n in walk_once(self.tree))
        given = _keyword(node, ("callbacks",)) or spread_key(node, "callbacks", self.tree, self._bindings)
        if self._defs is None:
            self._defs = functions(self.tree)
        callback = _chooses(given, self._bindings, self._loads_back, defs=self._defs)
        if callback:
            return callback
        use_best = _keyword(node, ("use_best_model",))
        if _true(use_best) or catboost and not isinstance(use_best, ast.Constant):
            return "use_best_model (CatBoost's default with an eval_set)"
        return None

    def _stopped_on(self, values: list[Any], node: ast.Call, how: str, call: str, frame: Any, trained: Any, *,
                    sets: list[ast.expr] | None = None, at: ast.Call | None = None, last: bool = False) -> None:
        """Report ``node``'s training (at ``at``, else at ``node``) when its evaluation sets (``sets``, else its
        evaluation keywords) are the test rows and ``how`` chooses by them; ``last``: the booster stops on the last
        of several sets only (XGBoost, CatBoost: :mod:`.watchedsets`)."""
        at = at or node
        sets = sets if sets is not None else [k.value for k in node.keywords if k.arg in EVAL_KEYWORDS]
        if call.endswith("train") and len(node.args) > 3:
            sets.append(node.args[3])  # xgb.train(params, dtrain, rounds, watchlist)
        watched = last_watched(sets, scoped_bindings(self._bindings, self.tree, node.lineno), node.lineno) \
            if last and "EarlyStopping" not in how else None
        if watched is not None:  # evals=[(dvalid, 'eval'), (dtrain, 'train')]: only the last one stops it
            sets, values = [watched], [last_value(v) for v in values if v is not None]
        if at.lineno in self._stopped:
            return
        if self._unrun is None:
            self._unrun = unrun_objectives(self.tree)
        if any(first <= at.lineno <= last for first, last in self._unrun):
            return  # inside an optuna objective that nothing runs (objectives.py)
        if self._stopped_on_test(values, node, how, call, frame, trained, sets, at) is None and at is node:
            fold = any(f.cv and f.start <= at.lineno <= f.end for f in self._loop_facts) or \
                bool(fold_body(self.tree, node, _training_node(node, call), sets, self._bindings))
            self._stopped_on_scored(node, how, call, frame, sets, fold)

    def _stopped_on_test(self, values: list[Any], node: ast.Call, how: str, call: str, frame: Any, trained: Any,
                         sets: list[ast.expr], at: ast.Call) -> bool | None:
        """Report the training when its evaluation sets are the test rows (True); False when it trains on those
        very rows (nothing held out); None when they are a validation part or a fold (silent here)."""
        bindings = scoped_bindings(self._bindings, self.tree, at.lineno)  # what this call's scope sees (wrapped.py)
        names = {n for s in sets for n in _names(s, bindings)}
        tags = [k.value for k in node.keywords if k.arg in ("valid_names", "eval_names")]
        names |= {c.value for s in [*sets, *tags] for c in ast.walk(s)  # [(dval, 'valid')], valid_names=['valid']
                  if isinstance(c, ast.Constant) and isinstance(c.value, str) and len(c.value) < 40}
        # a variable named after the API's own keyword (eval_set = [...]) names the argument, not its rows
        wrapped = wrapped_test_names(sets, bindings, choosing_named)  # DMatrix(test_X) tagged 'val' (wrapped.py)
        if not wrapped and any(choosing_named(n) for n in names if n not in EVAL_KEYWORDS):
            return None
        test_named = bool(wrapped) or any(vocab.looks_like_test(n) for n in names)
        if any(f.cv and f.start <= at.lineno <= f.end for f in self._loop_facts):
            return None  # early stopping on each fold's held-out part (see the module docstring)
        if fold_body(self.tree, node, _training_node(node, call), sets, self._bindings):
            return None  # the same, in a function that receives the fold as two index arrays into one frame
        from faultlib.detect.data.leakage.values import maybe_data

        fitted = maybe_data(trained)
        tracked = False
        for value in values:
            for item in _items(value, 3):
                if item is trained and trained is not None and trained is not UNKNOWN:  # (UNKNOWN: any unknown)
                    tracked = True  # X_test, y_test = X_train, y_train: the training rows themselves
                    continue
                data = maybe_data(item)
                if not isinstance(data, Data) or data.rows is None:
                    continue
                tracked = True
                if not held_out(data, test_named):
                    continue
                if isinstance(fitted, Data) and any(covers(f, p) for f in parts(fitted.rows) for p in parts(data.rows)):
                    return False  # trained on those very rows: nothing held out
                self._report_stop(at, how, call, frame, data.rows.describe())
                return True
        direct = [n for s in sets for n in map(_leaf_name, _leaves(s)) if n]
        if not tracked and direct and all(vocab.looks_like_test(n) for n in direct):
            # validation_data=test_generator (a Keras generator over a test folder): rows the analysis does not
            # follow, passed under a name for held-out rows
            self._report_stop(at, how, call, frame, ", ".join(direct))
            return True
        if not tracked and wrapped:  # validation_data=datagen.flow(X_test, y_test): test-named rows in a generator
            self._report_stop(at, how, call, frame, ", ".join(dict.fromkeys(wrapped)))
            return True
        return None

    def _stopped_on_scored(self, node: ast.Call, how: str, call: str, frame: Any, sets: list[ast.expr],
                           fold: bool) -> None:
        """Report the training when its stopping rows (a validation part, a fold) are scored after it and no other
        held-out rows are (:mod:`.stopscores`): the reported score is the one that chose the stopping point. On a
        validation part (not a fold), the call's own printed per-round log counts when nothing held out is scored."""
        if self._stop_scores is None:
            self._stop_scores = StopScores(self.tree)
        rows = self._stop_scores.stop_rows(sets, _training_node(node, call))
        scored = self._stop_scores.rescored(node, rows)
        if not scored and not fold:
            logged = self._stop_scores.logged_alone(node, rows)
            scored = f"its own log, {logged}, the only score the script shows" if logged else None
        if scored:  # the tree's line of the score, as the user's file (or notebook cell) numbers it
            scored = re.sub(r"\(line \{(\d+)\}\)", lambda m: f"(line {_user_line(self.smap.where(int(m.group(1))))})",
                            scored)  # only the placeholder stopscores writes: `labels={1}` in the code stays
            self._report_scored_stop(node, how, call, frame, ", ".join(sorted(rows)[:4]), scored)

    def _report_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str) -> None:
        self._stopped.add(node.lineno)
        self.report.findings.append(Finding(
            "leakage", Severity.WARNING,
            f"{call}() evaluates on the test rows ({rows}) and {how} chooses the model by that score (the number of "
            "rounds or epochs, the best weights): the test rows chose the model, so the test score reported for it "
            "is optimistic. Fix: stop on a validation part of the training rows (train_test_split(X_train, ...)) "
            "and score the test part once",
            {**self.smap.where(node.lineno), "column": node.col_offset + 1, "function": frame.qualname},
            {"call": call, "chooses_by": how, "held_out_rows": rows}, kind="tuned_on_test"))

    def _report_scored_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str, scored: str) -> None:
        self._stopped.add(node.lineno)
        self.report.findings.append(Finding(
            "leakage", Severity.WARNING,
            f"{call}() stops on held-out rows ({rows}) by {how}, and the score then taken on those same rows "
            f"({scored}) is the script's result, with no other held-out rows scored: the rows that chose the number "
            "of rounds or epochs (the best weights) also measure the model, so its reported score is optimistic. "
            "Fix: stop on an inner split of the training rows, or score a separate test part once",
            {**self.smap.where(node.lineno), "column": node.col_offset + 1, "function": frame.qualname},
            {"call": call, "chooses_by": how, "held_out_rows": rows, "scored_by": scored}, kind="tuned_on_test"))

    _stop_scores: StopScores | None = None  # the module's scores, for stopping rows scored again (computed once)
    _loads_back: bool | None = None  # the module loads a saved model or weights (computed once)
    _defs: dict[str, ast.FunctionDef] | None = None  # the program's functions, for callbacks a helper returns
    _unrun: list[tuple[int, int]] | None = None  # the lines of optuna objectives nothing runs (computed once)
    _stopped: set
    tree: ast.Module
    _bindings: dict
    _loop_facts: list
    report: Any
    smap: Any


def _user_line(where: dict[str, Any]) -> str:
    """``12`` or ``12 of cell 4``: a place as :meth:`SourceMap.where` gives it, in words."""
    return f"{where.get('line')}" + (f" of cell {where['index']}" if where.get("index") is not None else "")


def _training_node(node: ast.Call, call: str) -> ast.expr | None:
    """The expression of the training rows of a ``fit`` (first argument, ``X=``/``x=``) or a booster's ``train``
    (second argument, ``train_set=``/``dtrain=``)."""
    if call.endswith("train") and not call.endswith(".fit"):
        return node.args[1] if len(node.args) > 1 else _keyword(node, ("train_set", "dtrain"))
    return node.args[0] if node.args else _keyword(node, ("X", "x"))


def _leaves(node: ast.expr) -> list[ast.expr]:
    """The leaf expressions of an evaluation-set argument (``[(X_te, y_te)]`` -> ``X_te``, ``y_te``)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [leaf for e in node.elts for leaf in _leaves(e)]
    return [node]


def _leaf_name(node: ast.expr) -> str | None:
    """A leaf's name: a variable (``X_test``), or the split a dataset dictionary is indexed by (``ds['test']``:
    a ``DatasetDict`` keys its splits by name)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) \
            and node.slice.value not in EVAL_KEYWORDS:  # kwargs['eval_set']: the argument handed on, not a split
        return node.slice.value
    return None


def _names(node: ast.expr, bindings: dict[str, list[ast.expr]], depth: int = 3) -> set[str]:
    """The variable names in an evaluation-set argument and, ``depth`` assignments back, in what they were assigned
    (``watchlist`` -> ``[(dtrain, 'train'), (dvalid, 'valid')]`` -> ``dvalid``)."""
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if depth:
        for name in list(out):
            for value in bindings.get(name, [])[:4]:
                out |= _names(value, bindings, depth - 1)
    return out


__all__ = ["CHECKPOINTS", "FIT_METHODS", "STOP_CALLBACKS", "STOP_KEYWORDS", "EarlyStops"]
