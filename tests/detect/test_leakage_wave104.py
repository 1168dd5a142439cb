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
