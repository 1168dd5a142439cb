"""Kinds of issue 17's held-out wave 104 (sports analytics: match outcomes, player value, fantasy points), both
directions. Every example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_wave102 import _lines

# --- M1: a PredefinedSplit whose fold numbers are a marker column set on each part before the stack --------------

#: the two parts get a constant marker column (-1 for the rows fitted only, 0 for the held-out fold), are stacked
#: for the search, and the marker column of the stack is the search's test_fold
MARKED_FOLDS = """\
import pandas as pd
from sklearn.model_selection import PredefinedSplit, RandomizedSearchCV, train_test_split
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error

rounds = pd.read_csv("rounds.csv")
X, y = rounds.drop(columns="points"), rounds["points"]
X_train, {held}, y_train, {held_y} = train_test_split(X, y, test_size=0.2, shuffle=False)

X_train["fold"] = -1
{held}["fold"] = 0
X_search = pd.concat([X_train, {held}])
y_search = pd.concat([y_train, {held_y}])
marks = PredefinedSplit(X_search["fold"])
X_train.drop(["fold"], axis=1, inplace=True)
{held}.drop(["fold"], axis=1, inplace=True)
X_search.drop(["fold"], axis=1, inplace=True)

search = RandomizedSearchCV(GradientBoostingRegressor(), {{"max_depth": [2, 3, 4]}}, n_iter=3, cv=marks)
search.fit(X_search, y_search)
print(search.best_score_)
"""


def test_predefined_fold_from_a_marker_column_on_the_test_part_is_reported(tmp_path):
    """The marker column sets the test part's rows to fold 0, so every candidate is scored on the test rows and the
    best is kept: the search fit is ``tuned_on_test``."""
    body = MARKED_FOLDS.format(held="X_test", held_y="y_test")
    assert _lines(tmp_path, "search.py", body) == {20}


def test_predefined_fold_from_a_marker_column_on_a_validation_part_is_silent(tmp_path):
    """The same marker on a validation part (the documented use of PredefinedSplit) chooses nothing on test rows."""
    body = MARKED_FOLDS.format(held="X_val", held_y="y_val")
    assert _lines(tmp_path, "search.py", body) == set()


# --- F1: a calibrator fitted on the validation seasons, the test seasons scored through the project's own helper ---

#: a three-way split by season; the booster is fitted on the early seasons, a Platt calibrator on its validation
#: predictions, and both parts are scored through the script's own metric helper
SEASON_CALIBRATION = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from xgboost import XGBClassifier

games = pd.read_csv("games.csv")
early = games[games["season"] <= 2018]
val = games[games["season"] == 2019]
late = games[games["season"] >= 2020]
cols = ["elo_diff", "rest_diff", "form_diff"]


def summary(name, truth, prob):
    return {{"part": name, "log_loss": log_loss(truth, prob), "auc": roc_auc_score(truth, prob)}}


booster = XGBClassifier(n_estimators=200).fit(early[cols], early["home_win"])
p_val = booster.predict_proba(val[cols])[:, 1]
p_test = booster.predict_proba(late[cols])[:, 1]
platt = LogisticRegression()
platt.fit(p_val.reshape(-1, 1), val["home_win"])
rows = [summary("val_cal", val["home_win"], platt.predict_proba(p_val.reshape(-1, 1))[:, 1])]
{test_row}
print(pd.DataFrame(rows))
"""


def test_calibrator_on_the_validation_part_beside_a_test_part_scored_by_a_helper_is_silent(tmp_path):
    """The calibrator's validation score is the log of the validation step; the test seasons, scored once through
    the script's own helper (which calls the metrics), are the result: the house's three-way design."""
    body = SEASON_CALIBRATION.format(
        test_row='y_test = late["home_win"]\n'
                 'rows.append(summary("test_cal", y_test, platt.predict_proba(p_test.reshape(-1, 1))[:, 1]))')
    assert _lines(tmp_path, "calibrate.py", body, ("trained_on_test",)) == set()


def test_calibrator_scored_only_on_its_validation_part_is_reported(tmp_path):
    """With no test part scored, the validation score is the only result, and it is measured on the rows the
    calibrator was fitted on."""
    body = SEASON_CALIBRATION.format(test_row="")
    assert _lines(tmp_path, "calibrate.py", body, ("trained_on_test",)) == {21}


# --- M2: lag columns of the target built in an earlier notebook, read back and split with shuffling ---------------

#: the table was written by the feature notebook (per-player shift of the points); this script names its lag
#: columns beside the target and splits the player-rounds
LAGGED_TABLE = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error

table = pd.read_csv("player_rounds_features.csv")
keep = ["round_points", "home", "opponent_strength", "{lag1}", "{lag2}", "minutes_rolling"]
table = table[keep]
X, y = table.drop(columns=["round_points"]), table["round_points"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, {how})
model = Ridge().fit(X_train, y_train)
print(mean_squared_error(y_test, model.predict(X_test)))
"""


def test_shuffled_split_of_rows_with_named_lags_of_the_target_is_reported(tmp_path):
    """``points_lag_1`` / ``points_lag_2`` are the target of earlier rounds: a shuffled split trains on rows whose
    lags are the held-out rows' labels."""
    body = LAGGED_TABLE.format(lag1="points_lag_1", lag2="points_lag_2", how="random_state=0")
    assert _lines(tmp_path, "split.py", body, ("shuffled_time_split",)) == {10}


def test_split_in_time_order_or_lags_of_other_columns_is_silent(tmp_path):
    """The same columns split with ``shuffle=False`` (the last rows held out) keep time order; lags of other
    columns (minutes, goals) are no lag of the target."""
    ordered = LAGGED_TABLE.format(lag1="points_lag_1", lag2="points_lag_2", how="shuffle=False")
    assert _lines(tmp_path, "split.py", ordered, ("shuffled_time_split",)) == set()
    other = LAGGED_TABLE.format(lag1="minutes_lag_1", lag2="goals_lag_1", how="random_state=0")
    assert _lines(tmp_path, "split.py", other, ("shuffled_time_split",)) == set()


def test_a_history_column_named_with_a_lag_word_beside_the_target_is_no_lag_of_it(tmp_path):
    """``previous_bookings_not_canceled`` shares the word ``canceled`` with the target ``is_canceled`` but names a
    customer's earlier bookings (a column the dataset ships), not the target's earlier value: a shuffled split of the
    bookings is no time leak. ``points_prev_3_rolling_mean`` is one (the target's earlier values, averaged)."""
    history = LAGGED_TABLE.replace("round_points", "is_canceled").format(
        lag1="previous_bookings_not_canceled", lag2="previous_cancellations", how="random_state=0")
    assert _lines(tmp_path, "split.py", history, ("shuffled_time_split",)) == set()
    rolling = LAGGED_TABLE.format(lag1="points_prev_3_rolling_mean", lag2="points_lag_2_weeks", how="random_state=0")
    assert _lines(tmp_path, "split2.py", rolling, ("shuffled_time_split",)) == {10}
