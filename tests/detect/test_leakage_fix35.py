"""The static leakage analysis on the kinds named for stop 35 (issue 17), each in both directions: the leak found
at its line, the healthy look-alike silent. Every example is written for this test.

* early stopping or a best-model callback driven by the test rows chooses the model by its test score
  (:mod:`faultlib.detect.data.leakage.earlystop`, ``tuned_on_test``); a validation part, a fold, or an evaluation
  set that only prints stays silent;
* a function handed to an optimizer (optuna, hyperopt) is a loop over candidates that keeps the best
  (:mod:`faultlib.detect.data.leakage.objectives`): scoring the test rows in it is ``tuned_on_test``; a validation
  part or folds inside it stay silent.
"""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

IMPORTS = """\
import optuna
from hyperopt import fmin, hp, tpe
from xgboost import XGBRegressor
import lightgbm as lgb
from catboost import CatBoostClassifier
from tensorflow.keras.callbacks import EarlyStopping, ModelCheckpoint
"""

LEAKS = {
    # boosting rounds stopped on the held-out part, then that part's error printed as the test error
    "boosted_rounds_stopped_on_the_test_part": ("""\
        A, B, ya, yb = train_test_split(X, y, test_size=0.25)
        booster = XGBRegressor(n_estimators=3000)
        booster.fit(A, ya, eval_set=[(B, yb)], early_stopping_rounds=20, verbose=False)
        print(((booster.predict(B) - yb) ** 2).mean())
        """, [("tuned_on_test", 3)]),
    # the early stop given to the constructor (xgboost >= 1.6): every fit with an eval set stops on it
    "early_stop_in_the_constructor_and_the_test_rows_named": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        reg = XGBRegressor(early_stopping_rounds=50)
        reg.fit(X_train, y_train, eval_set=[(X_train, y_train), (X_test, y_test)])
        print(reg.score(X_test, y_test))
        """, [("tuned_on_test", 3)]),
    # a Keras network keeps the epoch with the best loss on the test rows
    "keras_early_stopping_callback_on_the_test_rows": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        stop = EarlyStopping(monitor='val_loss', patience=3, restore_best_weights=True)
        net = build_network()
        net.fit(X_train, y_train, epochs=200, validation_data=(X_test, y_test), callbacks=[stop])
        print(net.evaluate(X_test, y_test))
        """, [("tuned_on_test", 4)]),
    # the best epoch kept on disk by its test accuracy
    "checkpoint_of_the_best_epoch_on_the_test_rows": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        net = build_network()
        net.fit(X_train, y_train, validation_data=(X_test, y_test),
                callbacks=[ModelCheckpoint('best.h5', save_best_only=True)])
        net.load_weights('best.h5')
        print(net.evaluate(X_test, y_test))
        """, [("tuned_on_test", 3)]),
    # lightgbm's functional API with its early-stopping callback on a Dataset of the test part
    "lightgbm_train_with_an_early_stopping_callback": ("""\
        A, B, ya, yb = train_test_split(X, y)
        held = lgb.Dataset(B, label=yb)
        gbm = lgb.train({}, lgb.Dataset(A, label=ya), 500, valid_sets=[held], callbacks=[lgb.early_stopping(30)])
        print(gbm.predict(B))
        """, [("tuned_on_test", 3)]),
    # CatBoost keeps its best iteration on an eval_set unless told otherwise
    "catboost_default_best_model_on_the_test_rows": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        cat = CatBoostClassifier(iterations=800)
        cat.fit(X_train, y_train, eval_set=(X_test, y_test))
        print(cat.score(X_test, y_test))
        """, [("tuned_on_test", 3)]),
    # a competition's train.csv split in two, the held-aside part named and reported as the test score
    "training_file_part_named_test_stops_catboost": ("""\
        labelled, unlabelled = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        X_train, X_test, y_train, y_test = train_test_split(labelled.drop(columns=['label']), labelled['label'])
        cat = CatBoostClassifier(iterations=800)
        cat.fit(X_train, y_train, eval_set=(X_test, y_test))
        print('test score', cat.score(X_test, y_test))
        """, [("tuned_on_test", 4)]),
    # a Keras generator over a test folder: rows the analysis does not follow, named for testing
    "generator_of_the_test_folder_restores_its_best_epoch": ("""\
        test_images = ImageDataGenerator(rescale=1 / 255).flow_from_directory('pictures/test')
        net = build_network()
        net.fit(train_images, epochs=40, validation_data=test_images,
                callbacks=[EarlyStopping(patience=4, restore_best_weights=True)])
        print(net.evaluate(test_images))
        """, [("tuned_on_test", 3)]),
    # optuna keeps the trial with the best test AUC; the tuned model is then scored on the same rows
    "optuna_objective_returns_the_test_score": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        def objective(trial):
            model = LogisticRegression(C=trial.suggest_float('C', 1e-3, 10.0, log=True))
            model.fit(X_train, y_train)
            return model.score(X_test, y_test)
        study = optuna.create_study(direction='maximize')
        study.optimize(objective, n_trials=200)
        print(LogisticRegression(**study.best_params).fit(X_train, y_train).score(X_test, y_test))
        """, [("tuned_on_test", 5)]),
    # hyperopt minimising the test error of a forest, the objective handed by keyword
    "hyperopt_minimises_the_test_error": ("""\
        A, B, ya, yb = train_test_split(X, y)
        def loss(space):
            forest = Ridge(alpha=space['alpha']).fit(A, ya)
            return ((forest.predict(B) - yb) ** 2).mean()
        best = fmin(fn=loss, space={'alpha': hp.loguniform('alpha', -5, 2)}, algo=tpe.suggest, max_evals=100)
        """, [("tuned_on_test", 4)]),
    # a sweep scored on the part of train.csv the notebook names and reports as its test part
    "sweep_scored_on_a_training_file_part_named_test": ("""\
        labelled, unlabelled = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        X_train, X_test, y_train, y_test = train_test_split(labelled.drop(columns=['label']), labelled['label'])
        best, best_alpha = -1.0, None
        for alpha in [0.01, 0.1, 1.0, 10.0]:
            r2 = Ridge(alpha=alpha).fit(X_train, y_train).score(X_test, y_test)
            if r2 > best:
                best, best_alpha = r2, alpha
        """, [("tuned_on_test", 5)]),
    # the objective splits inside, always the same way (random_state=0): every trial is scored on the same rows
    "optuna_objective_splits_the_same_rows_every_trial": ("""\
        def objective(trial):
            A, B, ya, yb = train_test_split(X, y, test_size=0.2, random_state=0)
            return Ridge(alpha=trial.suggest_float('alpha', 0.1, 10.0)).fit(A, ya).score(B, yb)
        optuna.create_study(direction='maximize').optimize(objective, n_trials=50)
        """, [("tuned_on_test", 3)]),
}

HEALTHY = {
    # the early stop on a validation part of the training rows; the test part scored once
    "early_stopping_on_a_validation_part": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train)
        booster = XGBRegressor(n_estimators=3000)
        booster.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], early_stopping_rounds=20)
        print(booster.score(X_test, y_test))
        """,
    # the test rows only print the loss each epoch: nothing is chosen by them
    "evaluation_set_that_only_prints": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        booster = XGBRegressor(n_estimators=300)
        booster.fit(X_train, y_train, eval_set=[(X_test, y_test)], verbose=True)
        print(booster.score(X_test, y_test))
        """,
    # CatBoost told not to keep its best iteration
    "catboost_without_best_model": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        cat = CatBoostClassifier(iterations=800)
        cat.fit(X_train, y_train, eval_set=(X_test, y_test), use_best_model=False)
        print(cat.score(X_test, y_test))
        """,
    # a checkpoint of every epoch keeps nothing by its score
    "checkpoint_of_every_epoch": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        net = build_network()
        net.fit(X_train, y_train, validation_data=(X_test, y_test), callbacks=[ModelCheckpoint('e{epoch}.h5')])
        """,
    # a watchlist of a part the notebook names for validation (a competition's test is the leaderboard)
    "watchlist_of_a_part_named_for_validation": """\
        fit_part, dvalid = X[:-5000], X[-5000:]
        watch = [(fit_part, 'train'), (dvalid, 'valid')]
        booster = XGBRegressor(n_estimators=3000, early_stopping_rounds=20)
        booster.fit(fit_part, y[:-5000], eval_set=watch)
        """,
    # trained on every row, stopped on some of them: nothing was held out (another mistake, not this one)
    "stopped_on_rows_it_also_trained_on": """\
        A, B, ya, yb = train_test_split(X, y)
        booster = XGBRegressor(n_estimators=3000)
        booster.fit(X, y, eval_set=[(B, yb)], early_stopping_rounds=20)
        """,
    # the callback watches the training loss, and the best checkpoint is never loaded back
    "training_loss_watched_and_a_checkpoint_never_loaded": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        net = build_network()
        net.fit(X_train, y_train, validation_data=(X_test, y_test),
                callbacks=[EarlyStopping(monitor='loss'), ModelCheckpoint('best.h5', save_best_only=True)])
        print(net.evaluate(X_test, y_test))
        """,
    # the same generator fit, stopped on a generator named for validation
    "generator_named_for_validation": """\
        checked = ImageDataGenerator(rescale=1 / 255).flow_from_directory('pictures/valid')
        net = build_network()
        net.fit(train_images, validation_data=checked, callbacks=[EarlyStopping(patience=4)])
        """,
    # the optuna examples' practice: the objective scores a validation part
    "optuna_objective_on_a_validation_part": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        train_x, valid_x, train_y, valid_y = train_test_split(X_train, y_train)
        def objective(trial):
            model = LogisticRegression(C=trial.suggest_float('C', 1e-3, 10.0, log=True)).fit(train_x, train_y)
            return model.score(valid_x, valid_y)
        study = optuna.create_study(direction='maximize')
        study.optimize(objective, n_trials=200)
        print(LogisticRegression(**study.best_params).fit(X_train, y_train).score(X_test, y_test))
        """,
    # folds inside the objective: out-of-fold scores of the training part
    "optuna_objective_cross_validates_the_training_part": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        def objective(trial):
            scores = []
            for tr, te in KFold(5).split(X_train):
                model = Ridge(alpha=trial.suggest_float('alpha', 0.01, 10)).fit(X_train.iloc[tr], y_train.iloc[tr])
                scores.append(model.score(X_train.iloc[te], y_train.iloc[te]))
            return np.mean(scores)
        study = optuna.create_study()
        study.optimize(objective, n_trials=50)
        """,
    # a function that scores the test rows once, never handed to an optimizer
    "a_helper_that_scores_the_test_rows_once": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        def report(model):
            return model.score(X_test, y_test)
        print(report(LogisticRegression(C=1.0).fit(X_train, y_train)))
        """,
    # the same sweep on the part of train.csv named for validation
    "sweep_scored_on_a_training_file_part_named_valid": """\
        labelled, unlabelled = pd.read_csv("train.csv"), pd.read_csv("test.csv")
        X_fit, X_valid, y_fit, y_valid = train_test_split(labelled.drop(columns=['label']), labelled['label'])
        best, best_alpha = -1.0, None
        for alpha in [0.01, 0.1, 1.0, 10.0]:
            r2 = Ridge(alpha=alpha).fit(X_fit, y_fit).score(X_valid, y_valid)
            if r2 > best:
                best, best_alpha = r2, alpha
        """,
    # a fresh random hold-out at every trial (no fixed random_state): a repeated random validation
    "optuna_objective_draws_a_new_split_every_trial": """\
        def objective(trial):
            A, B, ya, yb = train_test_split(X, y, test_size=0.2)
            return Ridge(alpha=trial.suggest_float('alpha', 0.1, 10.0)).fit(A, ya).score(B, yb)
        optuna.create_study(direction='maximize').optimize(objective, n_trials=50)
        """,
    # early stopping on each fold's held-out part, for the models of a fold ensemble (the fold is not scored again:
    # that score would be the reported one, house since wave 70, tests/test_leakage_earlystop_scored.py)
    "early_stopping_on_each_fold": """\
        members = []
        for tr, te in KFold(5).split(X):
            X_test, y_test = X.iloc[te], y.iloc[te]
            booster = XGBRegressor(n_estimators=3000)
            booster.fit(X.iloc[tr], y.iloc[tr], eval_set=[(X_test, y_test)], early_stopping_rounds=20)
            members.append(booster)
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_found_at_its_line(tmp_path, name):
    body, expected = LEAKS[name]
    found = alarms(tmp_path, IMPORTS + _dedent(body))
    assert [(k, n - IMPORTS.count("\n")) for k, n in found] == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, IMPORTS + _dedent(HEALTHY[name])) == []


def _dedent(body: str) -> str:
    import textwrap

    return textwrap.dedent(body)
