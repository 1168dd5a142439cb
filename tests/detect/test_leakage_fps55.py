"""The static leakage analysis on false-alarm kinds judged at stop 54 (issue 17), in both directions:

* early stopping on a cross-validation fold whose fold score is printed, then a refit and a separate labelled test
  part scored through a table rebuilt from itself (``out = out.rename(...)``): the test score is the reported one,
  so the stopping folds were validation (stopscores.py reads a self-rebinding as the value bound before it);

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import dedented_alarms as _alarms
from tests.detect.leakage_source import line_of as _line

# ---------------------------------------------------------------- fold stopping, then the test part scored

_FOLDS = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import mean_squared_error
    from sklearn.model_selection import TimeSeriesSplit

    sales = pd.read_csv("sales.csv")
    history = sales[sales.month < "2024-10"]
    test_part = sales[sales.month >= "2024-10"]
    X, y = history.drop(columns="qty"), history.qty


    def fit_model(X, y):
        errors = []
        for tr, va in TimeSeriesSplit(4).split(X):
            fold_valid = lgb.Dataset(X.iloc[va], label=y.iloc[va])
            booster = lgb.train({}, lgb.Dataset(X.iloc[tr], label=y.iloc[tr]), valid_sets=[fold_valid],
                                callbacks=[lgb.early_stopping(20)])
            errors.append(mean_squared_error(y.iloc[va], booster.predict(X.iloc[va])))
        print(np.mean(errors))
        return lgb.train({}, lgb.Dataset(X, label=y), num_boost_round=300)


    model = fit_model(X, y)
"""


def test_fold_stopping_then_rebuilt_test_table_scored_is_silent(tmp_path: Path) -> None:
    text = _FOLDS + """\
    table = test_part[["qty"]].copy()
    table["pred"] = model.predict(test_part.drop(columns="qty"))
    table = table.rename(columns={"qty": "actual"})
    print(mean_squared_error(table["actual"], table["pred"]))
"""
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


def test_fold_stopping_with_only_the_fold_score_is_found(tmp_path: Path) -> None:
    text = _FOLDS + """\
    table = history[["qty"]].copy()
    table = table.rename(columns={"qty": "actual"})
    print(table.shape)
"""
    assert ("tuned_on_test", _line(text, "booster = lgb.train(")) in _alarms(tmp_path, text)


# ---------------------------------------------------------------- XGBoost stops on the last evaluation set

_XGB = """\
    import pandas as pd
    import xgboost as xgb
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split

    loans = pd.read_csv("loans.csv")
    X_tr, X_va, y_tr, y_va = train_test_split(loans.drop(columns="default"), loans.default, test_size=0.2)
    dtrain = xgb.DMatrix(X_tr, label=y_tr)
    dvalid = xgb.DMatrix(X_va, label=y_va)
    watchlist = WATCH
    booster = xgb.train({"objective": "binary:logistic"}, dtrain, num_boost_round=5000, evals=watchlist,
                        early_stopping_rounds=30)
    print(roc_auc_score(y_va, booster.predict(dvalid)))
"""


def test_xgboost_stopping_on_the_training_rows_listed_last_is_silent(tmp_path: Path) -> None:
    text = _XGB.replace("WATCH", "[(dvalid, 'eval'), (dtrain, 'train')]")
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


def test_xgboost_stopping_on_the_validation_rows_listed_last_is_found(tmp_path: Path) -> None:
    text = _XGB.replace("WATCH", "[(dtrain, 'train'), (dvalid, 'eval')]")
    assert ("tuned_on_test", _line(text, "booster = xgb.train(")) in _alarms(tmp_path, text)


def test_xgboost_fit_with_the_training_pair_last_is_silent_and_reversed_found(tmp_path: Path) -> None:
    text = """\
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import train_test_split
    from xgboost import XGBClassifier

    loans = pd.read_csv("loans.csv")
    X_tr, X_va, y_tr, y_va = train_test_split(loans.drop(columns="default"), loans.default, test_size=0.2)
    clf = XGBClassifier(n_estimators=3000, early_stopping_rounds=40)
    clf.fit(X_tr, y_tr, eval_set=[(X_va, y_va), (X_tr, y_tr)])
    print(roc_auc_score(y_va, clf.predict_proba(X_va)[:, 1]))
"""
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}
    flipped = text.replace("[(X_va, y_va), (X_tr, y_tr)]", "[(X_tr, y_tr), (X_va, y_va)]")
    assert ("tuned_on_test", _line(flipped, "clf.fit(")) in _alarms(tmp_path, flipped)


# ---------------------------------------------------------------- CatBoost use_best_model=False in a spread dict

_CAT = """\
    import pandas as pd
    from catboost import CatBoostClassifier, Pool
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import train_test_split

    riders = pd.read_csv("riders.csv")
    X_tr, X_va, y_tr, y_va = train_test_split(riders.drop(columns="churn"), riders.churn, test_size=0.25)
    settings = {"iterations": 400, "learning_rate": 0.05, "use_best_model": False}
    plain = CatBoostClassifier(**settings)
    plain.fit(Pool(X_tr, y_tr), eval_set=Pool(X_va, y_va))
    print(accuracy_score(y_va, plain.predict(X_va)))
    tuned_settings = settings.copy()
    tuned_settings.update({"use_best_model": True})
    tuned = CatBoostClassifier(**tuned_settings)
    tuned.fit(Pool(X_tr, y_tr), eval_set=Pool(X_va, y_va))
    print(accuracy_score(y_va, tuned.predict(X_va)))
"""


def test_catboost_spread_use_best_model_false_is_silent_and_its_true_copy_found(tmp_path: Path) -> None:
    found = {a for a in _alarms(tmp_path, _CAT) if a[0] == "tuned_on_test"}
    assert ("tuned_on_test", _line(_CAT, "plain.fit(")) not in found
    assert ("tuned_on_test", _line(_CAT, "tuned.fit(")) in found
