"""Early stopping on a validation part or a cross-validation fold whose own score, taken after the stopping, is the
script's result (``tuned_on_test``, :mod:`faultlib.detect.data.leakage.stopscores` read by
:mod:`faultlib.detect.data.leakage.earlystop`), in both directions: the training call found at its line, and the
look-alikes silent (a separate test part scored, other rows scored than the stopping ones, a score with no
stopping). Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from tests.detect.test_leakage_kinds import alarms

IMPORTS = """\
import lightgbm as lgb
from xgboost import XGBClassifier
from catboost import CatBoostRegressor, Pool
from sklearn.metrics import roc_auc_score, accuracy_score, mean_absolute_error
from sklearn.model_selection import StratifiedKFold
from tensorflow.keras.callbacks import EarlyStopping
from pytorch_tabnet.tab_model import TabNetRegressor
import matplotlib.pyplot as plt
COLS = ['age', 'visits', 'spend']
"""

LEAKS = {
    # lightgbm's sklearn API in a fold loop: each fold stops on its own held-out rows, then that fold's AUC is the
    # fold score whose mean is printed
    "lgb_fold_loop_scored_on_the_stopping_fold": ("""\
        fold_aucs = []
        for fit_idx, hold_idx in StratifiedKFold(5, shuffle=True).split(X, y):
            gbm = lgb.LGBMClassifier(n_estimators=5000)
            gbm.fit(X.iloc[fit_idx], y.iloc[fit_idx], eval_set=[(X.iloc[hold_idx], y.iloc[hold_idx])],
                    callbacks=[lgb.early_stopping(100)])
            fold_aucs.append(roc_auc_score(y.iloc[hold_idx], gbm.predict_proba(X.iloc[hold_idx])[:, 1]))
        print(np.mean(fold_aucs))
        """, [("tuned_on_test", 4)]),
    # a Keras network stops on its validation part and restores the best epoch; the validation part's evaluate()
    # is the only score the script prints
    "keras_validation_data_then_evaluate_on_it": ("""\
        X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2)
        net = build_network()
        net.fit(X_fit, y_fit, epochs=300, validation_data=(X_val, y_val),
                callbacks=[EarlyStopping(patience=10, restore_best_weights=True)])
        loss, acc = net.evaluate(X_val, y_val)
        print('accuracy', acc)
        """, [("tuned_on_test", 3)]),
    # the functional lightgbm API with a data holder per part; the validation predictions' score is reported
    "lgb_train_on_a_dataset_of_the_validation_part": ("""\
        X_fit, X_valid, y_fit, y_valid = train_test_split(X, y, test_size=0.25)
        dfit = lgb.Dataset(X_fit, label=y_fit)
        dvalid = lgb.Dataset(X_valid, label=y_valid)
        booster = lgb.train({'objective': 'binary'}, dfit, num_boost_round=2000, valid_sets=[dfit, dvalid],
                            callbacks=[lgb.early_stopping(50)])
        guess = booster.predict(X_valid, num_iteration=booster.best_iteration)
        print('valid auc', roc_auc_score(y_valid, guess))
        """, [("tuned_on_test", 4)]),
    # catboost keeps its best iteration on the fold's Pool by default; the out-of-fold error is the result
    "catboost_out_of_fold_error_over_the_stopping_folds": ("""\
        oof = np.zeros(len(X))
        for a, b in KFold(4).split(X):
            reg = CatBoostRegressor(iterations=3000, early_stopping_rounds=40)
            reg.fit(Pool(X.iloc[a], y.iloc[a]), eval_set=Pool(X.iloc[b], y.iloc[b]))
            oof[b] = reg.predict(X.iloc[b])
        print('cv mae', mean_absolute_error(y, oof))
        """, [("tuned_on_test", 4)]),
    # the stopping fold is handed to a helper: its score is taken in the same function
    "helper_trains_and_scores_the_same_fold": ("""\
        def run_fold(tr_x, tr_y, va_x, va_y):
            clf = XGBClassifier(n_estimators=4000, early_stopping_rounds=30)
            clf.fit(tr_x, tr_y, eval_set=[(va_x, va_y)], verbose=False)
            return accuracy_score(va_y, clf.predict(va_x))
        results = [run_fold(X.iloc[a], y.iloc[a], X.iloc[b], y.iloc[b]) for a, b in KFold(5).split(X)]
        print(np.mean(results))
        """, [("tuned_on_test", 3)]),
    # pytorch-tabnet stops by patience and keeps the best epoch of each fold; the out-of-fold error is printed
    "tabnet_patience_on_each_fold_then_the_out_of_fold_error": ("""\
        oof = np.zeros(len(X))
        for a, b in KFold(5).split(X):
            net = TabNetRegressor()
            net.fit(X.values[a], y.values[a], eval_set=[(X.values[b], y.values[b])], patience=20)
            oof[b] = net.predict(X.values[b]).ravel()
        print('oof mae', mean_absolute_error(y, oof))
        """, [("tuned_on_test", 4)]),
    # a competition notebook: the labelled file is split, the booster stops on the validation part and prints its
    # score every round; nothing held out is scored otherwise, only the unlabelled file is predicted: the printed
    # log is the result the author reads
    "printed_round_log_of_the_validation_part_is_the_only_result": ("""\
        labelled = pd.read_csv('train.csv').sample(frac=1.0)
        cut = int(len(labelled) * 0.8)
        fit_rows, check_rows = labelled[:cut], labelled[cut:]
        dfit = lgb.Dataset(fit_rows[COLS], label=fit_rows['target'])
        dcheck = lgb.Dataset(check_rows[COLS], label=check_rows['target'])
        booster = lgb.train({'metric': 'auc'}, dfit, 1000, valid_sets=[dfit, dcheck], valid_names=['fit', 'valid'],
                            early_stopping_rounds=30, verbose_eval=True)
        board = pd.read_csv('test.csv')
        pd.DataFrame({'target': booster.predict(board[COLS])}).to_csv('submission.csv')
        """, [("tuned_on_test", 6)]),
}

HEALTHY = {
    # the same fold loop, but a test part split off first is scored at the end: that is the reported score
    "lgb_fold_loop_then_a_separate_test_part": """\
        X_dev, X_test, y_dev, y_test = train_test_split(X, y, test_size=0.2)
        fold_aucs, models = [], []
        for fit_idx, hold_idx in StratifiedKFold(5, shuffle=True).split(X_dev, y_dev):
            gbm = lgb.LGBMClassifier(n_estimators=5000)
            gbm.fit(X_dev.iloc[fit_idx], y_dev.iloc[fit_idx],
                    eval_set=[(X_dev.iloc[hold_idx], y_dev.iloc[hold_idx])], callbacks=[lgb.early_stopping(100)])
            fold_aucs.append(roc_auc_score(y_dev.iloc[hold_idx], gbm.predict_proba(X_dev.iloc[hold_idx])[:, 1]))
            models.append(gbm)
        test_p = np.mean([m.predict_proba(X_test)[:, 1] for m in models], axis=0)
        print('test auc', roc_auc_score(y_test, test_p))
        """,
    # Keras stops on its validation part, and the evaluation is on the test part of another split
    "keras_validation_data_then_evaluate_on_the_test_part": LEAKS["keras_validation_data_then_evaluate_on_it"][0].replace(
        "X_fit, X_val, y_fit, y_val = train_test_split(X, y,",
        "X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.2)\n"
        "        X_fit, X_val, y_fit, y_val = train_test_split(X_rest, y_rest,").replace(
        "net.evaluate(X_val, y_val)", "net.evaluate(X_test, y_test)"),
    # the stopping rows are never scored after the stopping: only an unlabelled competition file is predicted
    "stopped_on_a_validation_part_then_only_a_submission": """\
        X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2)
        clf = XGBClassifier(n_estimators=4000, early_stopping_rounds=30)
        clf.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], verbose=False)
        pd.DataFrame({'target': clf.predict_proba(pd.read_csv('test.csv'))[:, 1]}).to_csv('submission.csv')
        """,
    # the validation part is scored, but nothing was stopped or kept on it (a plain printed evaluation set)
    "scored_validation_part_without_stopping": """\
        X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2)
        clf = XGBClassifier(n_estimators=300)
        clf.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], verbose=False)
        print(accuracy_score(y_val, clf.predict(X_val)))
        """,
    # the same tabnet fold loop without stopping (patience=0): the epochs are all run, nothing is chosen
    "tabnet_without_patience_on_each_fold": LEAKS["tabnet_patience_on_each_fold_then_the_out_of_fold_error"][0].replace(
        "patience=20", "patience=0"),
    # the same printed log, but a later period of the labelled rows is predicted and compared by eye: that period,
    # not the log, is what the script shows as its result
    "printed_round_log_but_a_labelled_later_period_predicted": """\
        labelled = pd.read_csv('load.csv')
        early, test_period = labelled[labelled.year < 2020], labelled[labelled.year >= 2020]
        fit_rows, check_rows = early[:-500], early[-500:]
        dfit = lgb.Dataset(fit_rows[COLS], label=fit_rows['target'])
        dcheck = lgb.Dataset(check_rows[COLS], label=check_rows['target'])
        booster = lgb.train({'metric': 'l2'}, dfit, 1000, valid_sets=[dfit, dcheck], valid_names=['fit', 'valid'],
                            early_stopping_rounds=30, verbose_eval=True)
        plt.plot(test_period['target'].values)
        plt.plot(booster.predict(test_period[COLS]))
        """,
    # stopping on the validation part, but the rows scored afterwards are the training part's
    "stopped_on_validation_scored_on_training_rows": """\
        X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=0.2)
        clf = XGBClassifier(n_estimators=4000, early_stopping_rounds=30)
        clf.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], verbose=False)
        print('train accuracy', accuracy_score(y_fit, clf.predict(X_fit)))
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_scored_stopping_rows_found_at_the_training_call(tmp_path, name):
    body, expected = LEAKS[name]
    found = alarms(tmp_path, IMPORTS + textwrap.dedent(body))
    assert [(k, n - IMPORTS.count("\n")) for k, n in found] == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_stopping_rows_not_the_reported_score_is_silent(tmp_path, name):
    assert alarms(tmp_path, IMPORTS + textwrap.dedent(HEALTHY[name])) == []
