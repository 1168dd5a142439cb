"""Kinds of issue 17's held-out wave 102 (transport and mobility: taxi fares, flight delays, bike demand), both
directions. Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_crossmodule import _alarms, _write


def _lines(tmp_path, name: str, body: str, kinds: tuple[str, ...] = ("tuned_on_test",)) -> set[int]:
    """The lines of ``kinds`` alarms in the script ``body`` written as ``name``."""
    _write(tmp_path, {name: body})
    return {line for kind, _, line in _alarms(tmp_path, name) if kind in kinds}

# --- M1: a stop on the validation part whose printed log is the only result -------------------------------------

#: the unlabelled board file goes through three same-name steps and a helper that adds a column before it is
#: predicted; the booster, in a helper, stops on the validation part and prints its score every 100 rounds
FARES_LGB = """\
import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

rides = pd.read_csv("rides.csv")
board_raw = pd.read_csv("board.csv")


def add_span(a, b, frame):
    frame["span"] = np.abs(frame[a] - frame[b])
    return frame


rides = add_span("x0", "x1", rides)
board = add_span("x0", "x1", board_raw)
board = board.drop("ride_id", axis=1)
board = board.drop("stamp", axis=1)
board = board.drop("zone", axis=1)
X = rides.drop(columns=["fare", "ride_id", "stamp", "zone"])
y = rides["fare"]
X_test = {board}
X_fit, X_valid, y_fit, y_valid = train_test_split(X, y, test_size=0.2)


def boost(params, X_fit, y_fit, X_valid, y_valid):
    d_fit = lgb.Dataset(X_fit, y_fit)
    d_watch = lgb.Dataset(X_valid, y_valid, reference=d_fit)
    return lgb.train(params, d_fit, 5000, valid_sets=d_watch, early_stopping_rounds=100, verbose_eval=100)


booster = boost({{"metric": "rmse"}}, X_fit, y_fit, X_valid, y_valid)
pred = booster.predict(X_test)
pd.DataFrame({{"fare": pred}}).to_csv("out.csv", index=False)
"""

#: xgboost.train with no verbose_eval: its default prints the watched part's score every round
FARES_XGB = """\
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split

rides = pd.read_csv("rides.csv")
board = pd.read_csv("board.csv")
X = rides.drop(columns="fare")
y = rides["fare"]
X_fit, X_valid, y_fit, y_valid = train_test_split(X, y, test_size=0.2)


def boost(X_fit, X_valid, y_fit, y_valid, params):
    m_fit = xgb.DMatrix(X_fit, label=y_fit)
    m_watch = xgb.DMatrix(X_valid, label=y_valid)
    return xgb.train(params, m_fit, 2000, evals=[(m_watch, "valid")], early_stopping_rounds=50{log})


booster = boost(X_fit, X_valid, y_fit, y_valid, {{"eval_metric": "rmse"}})
X_test = board
pd.DataFrame({{"fare": booster.predict(xgb.DMatrix(X_test))}}).to_csv("out.csv", index=False)
"""


def test_a_validation_stop_whose_log_is_the_only_result_behind_feature_steps_of_the_test_file(tmp_path):
    assert 29 in _lines(tmp_path, "fares.py", FARES_LGB.format(board="board"))


def test_predicting_a_part_cut_from_the_data_is_no_unlabelled_file(tmp_path):
    # the last rows of the labelled rides, predicted by eye: another held-out part, so the log is not alone
    assert not _lines(tmp_path, "fares.py", FARES_LGB.format(board="X.tail(500)"))


def test_xgboost_train_logs_its_evaluation_sets_by_default(tmp_path):
    assert 15 in _lines(tmp_path, "xfares.py", FARES_XGB.format(log=""))


def test_xgboost_train_with_its_log_switched_off_is_silent(tmp_path):
    assert not _lines(tmp_path, "xfares.py", FARES_XGB.format(log=", verbose_eval=False"))


# --- F1: a tuning script's objective stops on its validation window and hands the best parameters on -----------

TUNE_WINDOWS = """\
import json

import lightgbm as lgb
import optuna
import pandas as pd
from sklearn.metrics import mean_absolute_error

FIT_END, CHECK_END = "2023-01-01", "2023-07-01"


def windows():
    legs = pd.read_csv("legs.csv")
    fit_df = legs[legs["day"] < FIT_END]
    val_df = legs[(legs["day"] >= FIT_END) & (legs["day"] < CHECK_END)]
    cols = ["distance", "hour", "carrier_code"]
    return fit_df[cols], fit_df["delay"], val_df[cols], val_df["delay"]


def objective(trial, X_fit, y_fit, X_val, y_val):
    model = lgb.LGBMRegressor(num_leaves=trial.suggest_int("num_leaves", 8, 128))
    model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], callbacks=[lgb.early_stopping(30)])
    return mean_absolute_error(y_val, model.predict(X_val))


X_fit, y_fit, X_val, y_val = windows()
study = optuna.create_study(direction="minimize")
study.optimize(lambda t: objective(t, X_fit, y_fit, X_val, y_val), n_trials=40)
print("best validation MAE", study.best_value)
{handoff}
"""


def test_a_tuning_script_that_writes_its_best_parameters_is_silent(tmp_path):
    body = TUNE_WINDOWS.format(handoff='json.dump(study.best_params, open("best_lgb.json", "w"))')
    _write(tmp_path, {"tune_lgb.py": body})
    assert not {a for a in _alarms(tmp_path, "tune_lgb.py") if a[0] == "tuned_on_test"}


def test_a_search_whose_validation_score_is_only_printed_keeps_its_report(tmp_path):
    _write(tmp_path, {"tune_lgb.py": TUNE_WINDOWS.format(handoff='print(study.best_params)')})
    assert ("tuned_on_test", "tune_lgb.py", 21) in _alarms(tmp_path, "tune_lgb.py")


# --- F2: a pipeline of the project's transformers that learn nothing, fitted before a search's folds -----------

IDLE_STEPS = """\
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import RandomizedSearchCV, train_test_split
from sklearn.pipeline import Pipeline


class PaceColumn(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        out = X.copy()
        out["pace"] = out["km"] / out["minutes"]
        return out


class RushCodes(BaseEstimator, TransformerMixin):
    def __init__(self, col="rush"):
        self.col = col

    def fit(self, X, y=None):
        {fit_body}
        return self

    def transform(self, X):
        out = X.copy()
        out["rush_code"] = out[self.col].map(self.codes_)
        return out.drop(columns=[self.col])


orders = pd.read_csv("orders.csv")
X_train, X_test, y_train, y_test = train_test_split(orders.drop(columns="eta"), orders["eta"], test_size=0.2)
prep = Pipeline([("pace", PaceColumn()), ("rush", RushCodes())])
X_ready = prep.fit_transform(X_train)
search = RandomizedSearchCV(RandomForestRegressor(), {{"max_depth": [4, 8, None]}}, cv=3, n_iter=3)
search.fit(X_ready, y_train)
print(search.best_score_)
print(search.score(prep.transform(X_test), y_test))
"""

_LEVEL_CODES = """if self.col in X.columns:
            levels = sorted(X[self.col].dropna().unique())
            self.codes_ = {lev: i for i, lev in enumerate(levels)}"""
_MEAN_CODES = """self.codes_ = X.groupby(self.col)["km"].mean()"""


def test_a_pipeline_of_transformers_that_learn_nothing_is_no_fit_before_the_folds(tmp_path):
    _write(tmp_path, {"eta.py": IDLE_STEPS.format(fit_body=_LEVEL_CODES)})
    assert not {a for a in _alarms(tmp_path, "eta.py") if a[0] in ("fit_outside_cv", "fit_before_split")}


def test_a_project_transformer_that_learns_group_means_is_still_fitted_before_the_folds(tmp_path):
    _write(tmp_path, {"eta.py": IDLE_STEPS.format(fit_body=_MEAN_CODES)})
    assert ("fit_outside_cv", "eta.py", 35) in _alarms(tmp_path, "eta.py")


# --- M2: a Bayesian optimisation whose objective returns a held-out score ---------------------------------------

BAYES_SEARCH = """\
import numpy as np
import pandas as pd
from bayes_opt import BayesianOptimization
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split

trips = pd.read_csv("trips.csv")
X_tr, X_te, y_tr, y_te = train_test_split(trips.drop(columns="fare"), trips["fare"], test_size=0.3)
{inner}

def fare_rmse(depth, rate):
    model = GradientBoostingRegressor(max_depth=int(depth), learning_rate=rate).fit(X_fit, y_fit)
    return -np.sqrt(mean_squared_error(y_look, model.predict(X_look)))


opt = BayesianOptimization(f=fare_rmse, pbounds={{"depth": (2, 8), "rate": (0.01, 0.3)}})
opt.maximize(init_points=4, n_iter=10)
best = opt.max["params"]
final = GradientBoostingRegressor(max_depth=int(best["depth"]), learning_rate=best["rate"]).fit(X_tr, y_tr)
print(np.sqrt(mean_squared_error(y_te, final.predict(X_te))))
"""


def test_a_bayesian_optimisation_scored_on_the_test_part_is_tuned_on_test(tmp_path):
    body = BAYES_SEARCH.format(inner="X_fit, y_fit, X_look, y_look = X_tr, y_tr, X_te, y_te")
    _write(tmp_path, {"bayes.py": body})
    assert ("tuned_on_test", "bayes.py", 14) in _alarms(tmp_path, "bayes.py")


def test_a_bayesian_optimisation_scored_on_a_validation_part_is_silent(tmp_path):
    body = BAYES_SEARCH.format(inner="X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.25)\n"
                                     "X_look, y_look = X_val, y_val")
    _write(tmp_path, {"bayes.py": body})
    assert not {a for a in _alarms(tmp_path, "bayes.py") if a[0] == "tuned_on_test"}


def test_a_fit_that_keeps_a_statistic_of_the_levels_learns():
    import ast

    from faultlib.detect.data.leakage.idlefits import idle_fit

    def fit_of(body: str) -> ast.FunctionDef:
        return ast.parse(f"def fit(self, X, y=None):\n    {body}\n    return self").body[0]  # type: ignore[return-value]

    assert idle_fit(fit_of("self.cols_ = list(X.columns)"))
    assert idle_fit(fit_of("self.order_ = {v: i for i, v in enumerate(sorted(X['band'].unique()))}"))
    assert not idle_fit(fit_of("self.top_ = X['band'].unique().max()"))
    assert not idle_fit(fit_of("self.mid_ = X['km'].median()"))
    assert not idle_fit(fit_of("self.scaler.fit(X)"))
