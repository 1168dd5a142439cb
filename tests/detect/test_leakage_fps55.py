"""The static leakage analysis on false-alarm kinds judged at stop 54 (issue 17), in both directions:

* early stopping on a cross-validation fold whose fold score is printed, then a refit and a separate labelled test
  part scored through a table rebuilt from itself (``out = out.rename(...)``): the test score is the reported one,
  so the stopping folds were validation (stopscores.py reads a self-rebinding as the value bound before it), also
  when the test part is scored by a helper of the script that computes metrics of its parameters and trains nothing;
* XGBoost and CatBoost stop on the last of several evaluation sets: the training rows listed last choose nothing
  (watchedsets.py); CatBoost's ``use_best_model=False`` given through ``**params`` keeps no best iteration;
* a cell switched off by ``%%script false`` (also under ``%%time``) runs no Python (cellmagics.py, source.py);
* a visit's or an order's own rows aggregated (``groupby('visit_id').agg(lo=('LEVEL', 'min'))``) on the test file
  are one sample's own feature rows; a key shared across samples, or the label aggregated, stays a fit (samples.py);
* the range of a fold's predicted probabilities (``(p - p.min()) / (p.max() - p.min())``) is a summary of the
  model's outputs, no fit of the fold's rows (predbuffers.py); a fold's features rescaled so stay a fit;
* early stopping inside an optuna objective that nothing names (its study commented out) never runs
  (objectives.py); the same objective handed to ``study.optimize`` is still found.

Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
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


_HELPER = """\
    import lightgbm as lgb
    import numpy as np
    import pandas as pd
    from sklearn.metrics import mean_absolute_error, mean_squared_error
    from sklearn.model_selection import KFold


    def summarise(actual, predicted):
        return {"rmse": np.sqrt(mean_squared_error(actual, predicted)), "mae": mean_absolute_error(actual, predicted)}


    def fit_model(X, y):
        for tr, va in KFold(5).split(X):
            booster = lgb.train({}, lgb.Dataset(X.iloc[tr], label=y.iloc[tr]),
                                valid_sets=[lgb.Dataset(X.iloc[va], label=y.iloc[va])],
                                callbacks=[lgb.early_stopping(25)])
            print(FOLD_SCORE(y.iloc[va], booster.predict(X.iloc[va])))
        return lgb.train({}, lgb.Dataset(X, label=y), num_boost_round=400)


    homes = pd.read_csv("homes.csv")
    X_test, y_test = homes[homes.year == 2024].drop(columns="price"), homes[homes.year == 2024].price
    older = homes[homes.year < 2024]
    model = fit_model(older.drop(columns="price"), older.price)
"""


def test_fold_stopping_then_the_test_part_scored_by_a_metric_helper_is_silent(tmp_path: Path) -> None:
    text = _HELPER.replace("FOLD_SCORE", "mean_squared_error") + """\
    print(summarise(y_test, model.predict(X_test)))
"""
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


@pytest.mark.parametrize("fold_score", ["mean_squared_error", "summarise"])
def test_fold_stopping_scored_and_the_test_part_only_predicted_is_found(tmp_path: Path, fold_score: str) -> None:
    text = _HELPER.replace("FOLD_SCORE", fold_score) + """\
    np.save("prices.npy", model.predict(X_test))
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


@pytest.mark.parametrize(("watch", "found"), [("[(dvalid, 'eval'), (dtrain, 'train')]", False),
                                              ("[(dtrain, 'train'), (dvalid, 'eval')]", True)])
def test_xgboost_stops_on_the_last_evaluation_set_only(tmp_path: Path, watch: str, found: bool) -> None:
    text = _XGB.replace("WATCH", watch)  # the training rows last: the validation rows choose nothing
    stops = {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}
    assert stops == ({("tuned_on_test", _line(text, "booster = xgb.train("))} if found else set())


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


# ---------------------------------------------------------------- a cell switched off by %%script false

_SPLIT = """\
import pandas as pd
from lightgbm import LGBMClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

plants = pd.read_csv("plants.csv")
X_train, X_test, y_train, y_test = train_test_split(plants.drop(columns="wilted"), plants.wilted, test_size=0.2)
"""
_STOPPED = ("booster = LGBMClassifier(n_estimators=5000)\\n"
            "booster.fit(X_train, y_train, eval_set=[(X_test, y_test)], early_stopping_rounds=100)\\n"
            "print(roc_auc_score(y_test, booster.predict_proba(X_test)[:, 1]))\\n")


def test_an_exported_time_cell_switched_off_by_script_false_is_silent(tmp_path: Path) -> None:
    text = _SPLIT + f"get_ipython().run_cell_magic('time', '', '%%script false --no-raise-error\\n{_STOPPED}')\n"
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


def test_an_exported_time_cell_that_runs_is_found(tmp_path: Path) -> None:
    text = _SPLIT + f"get_ipython().run_cell_magic('time', '', '{_STOPPED}')\n"
    assert ("tuned_on_test", _line(text, "run_cell_magic")) in _alarms(tmp_path, text)


def _notebook(tmp_path: Path, head: str) -> set[tuple[str, int]]:
    body = head + _STOPPED.replace("\\n", "\n")
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": text}
             for text in (_SPLIT, body)]
    doc = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "plants.ipynb"
    path.write_text(json.dumps(doc))
    report, _ = analyze_file(str(path), alone=True)
    return {(f.kind, f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind == "tuned_on_test"}


def test_a_notebook_time_cell_switched_off_by_script_false_is_silent_and_a_running_one_found(tmp_path: Path) -> None:
    assert not _notebook(tmp_path, "%%time\n%%script false --no-raise-error\n")
    assert ("tuned_on_test", 3) in _notebook(tmp_path, "%%time\n")


# ---------------------------------------------------------------- a visit's or an order's own rows aggregated

_VISITS = """\
    import pandas as pd
    from sklearn.ensemble import RandomForestRegressor

    clinic = pd.read_csv("train_visits.csv")
    assays = pd.read_csv("train_assays.csv")
    test_clinic = pd.read_csv("test_visits.csv")
    test_assays = pd.read_csv("test_assays.csv")


    def visit_features(visits, measured):
        per_visit = measured.groupby(KEY).agg(level_min=("LEVEL", "min"), level_mean=("LEVEL", "mean"))
        return visits.merge(per_visit.reset_index(), on=KEY, how="left")


    X = visit_features(clinic, assays)
    model = RandomForestRegressor().fit(X.drop(columns="score"), X.score)
    X_test = visit_features(test_clinic, test_assays)
    pd.DataFrame({"score": model.predict(X_test)}).to_csv("submission.csv")
"""


@pytest.mark.parametrize("key", ["'visit_id'", "'order_id'"])
def test_a_units_own_measurements_aggregated_on_the_test_file_are_silent(tmp_path: Path, key: str) -> None:
    text = _VISITS.replace("KEY", key)
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "fit_on_test"}


@pytest.mark.parametrize("key", ["'lab'", "'order'"])
def test_an_aggregate_over_a_key_shared_across_units_on_the_test_file_is_found(tmp_path: Path, key: str) -> None:
    text = _VISITS.replace("KEY", key)
    assert ("fit_on_test", _line(text, "per_visit = ")) in _alarms(tmp_path, text)


def test_a_units_own_label_aggregated_in_named_form_stays_a_statistic(tmp_path: Path) -> None:
    text = _VISITS.replace("KEY", "'visit_id'").replace('("LEVEL", "min")', '("score", "min")')
    text = text.replace('("LEVEL", "mean")', '("score", "mean")')
    found = _alarms(tmp_path, text)
    assert ("fit_on_test", _line(text, "per_visit = ")) in found


# ---------------------------------------------------------------- an optuna objective whose study never runs

_OBJECTIVE = """\
    import numpy as np
    import optuna
    import pandas as pd
    from lightgbm import LGBMClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    signals = pd.read_csv("signals.csv")
    X, y = signals.drop(columns="state"), signals.state


    def objective(trial):
        settings = {"num_leaves": trial.suggest_int("num_leaves", 8, 256), "objective": "binary"}
        oof = np.zeros(len(X))
        for tr, va in StratifiedKFold(5, shuffle=True, random_state=1).split(X, y):
            clf = LGBMClassifier(**settings)
            clf.fit(X.iloc[tr], y.iloc[tr], eval_set=[(X.iloc[va], y.iloc[va])], early_stopping_rounds=100)
            oof[va] = clf.predict_proba(X.iloc[va])[:, 1]
        return roc_auc_score(y, oof)


    STUDY
"""


@pytest.mark.parametrize(("study", "found"), [("# optuna.create_study().optimize(objective, 50)", False),
                                              ("optuna.create_study().optimize(objective, 50)", True)])
def test_early_stopping_inside_an_objective_counts_only_when_a_study_runs_it(tmp_path: Path, study: str,
                                                                            found: bool) -> None:
    text = _OBJECTIVE.replace("STUDY", study)
    stops = {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}
    assert (("tuned_on_test", _line(text, "clf.fit(")) in stops) is found and (found or not stops)


# ---------------------------------------------------------------- the test part scored by a hand-written error

_HANDWRITTEN = """\
    import numpy as np
    import pandas as pd
    from catboost import CatBoostRegressor
    from sklearn.model_selection import train_test_split

    houses = pd.read_csv("houses.csv")
    X_rest, X_test, y_rest, y_test = train_test_split(houses.drop(columns="value"), houses.value, test_size=0.5)
    X_fit, X_check, y_fit, y_check = train_test_split(X_rest, y_rest, test_size=0.2)
    reg = CatBoostRegressor(iterations=600, verbose=False)
    reg.fit(X_fit, y_fit, eval_set=(X_check, y_check))
    print(reg.best_score_["validation"]["RMSE"])
    test_pred = reg.predict(X_test)
"""


@pytest.mark.parametrize("error", ["np.sqrt(np.mean((test_pred - y_test) ** 2))", "np.abs(test_pred - y_test).mean()"])
def test_validation_stopping_then_the_test_part_scored_by_a_written_error_is_silent(tmp_path: Path, error: str) -> None:
    text = _HANDWRITTEN + f"    print({error})\n"
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "tuned_on_test"}


def test_validation_stopping_with_the_test_part_only_predicted_is_found(tmp_path: Path) -> None:
    text = _HANDWRITTEN + "    np.save('values.npy', test_pred)\n"
    assert ("tuned_on_test", _line(text, "reg.fit(")) in _alarms(tmp_path, text)


# ---------------------------------------------------------------- a fold's predictions rescaled by their own range

_RESCALED = """\
    import numpy as np
    import pandas as pd
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold

    claims = pd.read_csv("claims.csv")
    X, y = claims.drop(columns="fraud"), claims.fraud
    oof = np.zeros(len(X))
    for tr, va in KFold(4, shuffle=True, random_state=3).split(X):
        clf = LogisticRegression().fit(X.iloc[tr], y.iloc[tr])
        RESCALE
    print(roc_auc_score(y, oof))
    blender = LogisticRegression().fit(np.c_[oof, X.amount], y)
"""


def test_a_folds_predictions_rescaled_by_their_own_range_are_silent(tmp_path: Path) -> None:
    text = _RESCALED.replace("RESCALE", "fold_p = clf.predict_proba(X.iloc[va])[:, 1]\n"
                             "        oof[va] = (fold_p - fold_p.min()) / (fold_p.max() - fold_p.min())")
    assert not {a for a in _alarms(tmp_path, text) if a[0] == "fit_on_test"}


def test_a_folds_features_rescaled_by_their_own_range_are_found(tmp_path: Path) -> None:
    text = _RESCALED.replace("RESCALE", "fold_x = X.iloc[va].to_numpy()\n"
                             "        fold_x = (fold_x - fold_x.min()) / (fold_x.max() - fold_x.min())\n"
                             "        oof[va] = clf.predict_proba(fold_x)[:, 1]")
    assert ("fit_on_test", _line(text, "fold_x = (fold_x")) in _alarms(tmp_path, text)
