"""The static leakage analysis on the kinds held-out wave 55 of public code showed (book companions and course
labs on tabular data: every column's gaps filled with its own mean in a ``for i in range(n)`` loop over a frame's
column labels, a mode taken with ``scipy.stats``, scikit-learn's old ``Imputer`` along rows, a split that only
shows its shapes in a lesson that saves another table, a grid search that tunes an imputer of one column at a time),
in both directions.
Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

_SPLIT_FIT_SCORE = """\
tr_x, te_x, tr_y, te_y = train_test_split(table, label, test_size=0.3, random_state=7)
clf = LogisticRegression().fit(tr_x, tr_y)
print(clf.score(te_x, te_y))
"""

_HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

sheet = pd.read_csv("pages.csv", header=None)
"""

# a frame's columns are labelled 0..39; each one's gaps get the mean of every row, by position in a counted loop
COLUMN_MEANS_IN_A_COUNTED_LOOP = _HEAD + """\
table = sheet.loc[:, 0:39]
label = sheet[40]
for k in range(0, 40):
    table[k] = table[k].fillna(table[k].mean())
""" + _SPLIT_FIT_SCORE

# the same loop over the training part only, after the split: the means are the training rows'
COLUMN_MEANS_OF_THE_TRAINING_PART = _HEAD + """\
table = sheet.loc[:, 0:39]
label = sheet[40]
tr_x, te_x, tr_y, te_y = train_test_split(table, label, test_size=0.3, random_state=7)
for k in range(0, 40):
    means = tr_x[k].mean()
    tr_x[k] = tr_x[k].fillna(means)
    te_x[k] = te_x[k].fillna(means)
clf = LogisticRegression().fit(tr_x, tr_y)
print(clf.score(te_x, te_y))
"""

# a counted loop over the rows of a frame (``.iloc[k]``): each row's gaps filled from that row alone
ROW_MEANS_IN_A_COUNTED_LOOP = _HEAD + """\
table = sheet.loc[:, 0:39].copy()
label = sheet[40]
for k in range(len(table)):
    table.iloc[k] = table.iloc[k].fillna(table.iloc[k].mean())
""" + _SPLIT_FIT_SCORE

# a counted loop over the samples of an array: each sample scaled by its own largest value
SAMPLES_SCALED_BY_THEIR_OWN_PEAK = _HEAD + """\
table = sheet.loc[:, 0:39].to_numpy(dtype=float)
label = sheet[40].to_numpy()
for k in range(len(table)):
    table[k] = table[k] / table[k].max()
""" + _SPLIT_FIT_SCORE

# the most frequent code of every visit fills the missing codes, column by column, before the split
MODE_FROM_SCIPY_BEFORE_THE_SPLIT = """\
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

visits = pd.read_csv("visits.csv")
for code in ["ward", "payer", "shift"]:
    known = visits.loc[visits[code] >= 0, code]
    visits.loc[visits[code] < 0, code] = stats.mode(known)[0]
label = visits.pop("readmitted")
table = visits
""" + _SPLIT_FIT_SCORE

# the same mode, taken from the training part after the split
MODE_FROM_SCIPY_OF_THE_TRAINING_PART = """\
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

visits = pd.read_csv("visits.csv")
label = visits.pop("readmitted")
tr_x, te_x, tr_y, te_y = train_test_split(visits, label, test_size=0.3, random_state=7)
for code in ["ward", "payer", "shift"]:
    common = stats.mode(tr_x.loc[tr_x[code] >= 0, code])[0]
    tr_x.loc[tr_x[code] < 0, code] = common
    te_x.loc[te_x[code] < 0, code] = common
clf = LogisticRegression().fit(tr_x, tr_y)
print(clf.score(te_x, te_y))
"""

_IMPUTER = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import Imputer

applicants = pd.read_csv("applicants.csv")
label = applicants.pop("admitted")
filler = Imputer({args})
filler.fit(applicants)
table = filler.transform(applicants)
""" + _SPLIT_FIT_SCORE

# a lesson fills a small frame's gaps, shows how a split divides it (shapes only) and saves another cleaned table
_SHOWN_SPLIT = """\
import pandas as pd
from sklearn.model_selection import train_test_split

stock = pd.DataFrame({{"cost": [2.5, None, 7.0, 4.0, 3.5], "sold": [1, 0, 1, 1, 0]}})
stock = stock.fillna(value=stock.cost.mean())
a_fit, a_held, b_fit, b_held = train_test_split(stock[["cost"]], stock.sold, test_size=0.4)
{use}
staff = pd.read_csv("staff.csv").dropna()
staff.to_csv("staff_clean.csv", index=False)
"""

# each gappy column is predicted from the others (their gaps filled with means first) by a tuned Lasso
_IMPUTER_GRID = """\
import pandas as pd
from sklearn.linear_model import Lasso
from sklearn.model_selection import GridSearchCV

def fill_by_regression(sheet, wanted):
    for name in wanted:
        others = sheet.drop(columns=[name])
        others = others.fillna(others.mean())
        known = pd.concat([others, sheet[[name]]], axis=1).dropna(subset=[name])
        {xy}
        grid = GridSearchCV(Lasso(), {{"alpha": [0.01, 0.1, 1.0]}}, cv=4)
        grid.fit(feats.values, goal.values)
        print(name, grid.best_score_)
    return sheet

visits = pd.read_csv("visits.csv")
fill_by_regression(visits, [c for c in visits.columns if visits[c].isna().any()])
"""


def test_column_means_in_a_counted_loop_over_a_frame_are_statistics_of_every_row(tmp_path: Path) -> None:
    assert ("fit_before_split", 10) in alarms(tmp_path, COLUMN_MEANS_IN_A_COUNTED_LOOP)


def test_column_means_of_the_training_part_in_a_counted_loop_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, COLUMN_MEANS_OF_THE_TRAINING_PART) == set()


def test_row_means_in_a_counted_loop_over_iloc_rows_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, ROW_MEANS_IN_A_COUNTED_LOOP) == set()


def test_samples_scaled_by_their_own_peak_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, SAMPLES_SCALED_BY_THEIR_OWN_PEAK) == set()


def test_a_scipy_mode_of_every_row_before_the_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, MODE_FROM_SCIPY_BEFORE_THE_SPLIT)


def test_a_scipy_mode_of_the_training_part_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, MODE_FROM_SCIPY_OF_THE_TRAINING_PART) == set()


def test_the_old_imputer_along_columns_before_the_split_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, _IMPUTER.format(args='missing_values="NaN", strategy="median", axis=0'))


def test_the_old_imputer_along_rows_learns_nothing_from_other_rows(tmp_path: Path) -> None:
    assert alarms(tmp_path, _IMPUTER.format(args='missing_values="NaN", strategy="median", axis=1')) == set()
    assert alarms(tmp_path, _IMPUTER.format(args='"NaN", "median", 1')) == set()


def test_a_split_shown_by_its_shapes_beside_a_saved_table_holds_out_nothing_scored(tmp_path: Path) -> None:
    assert alarms(tmp_path, _SHOWN_SPLIT.format(use="print(a_fit.shape, a_held.shape, len(b_held))")) == set()


def test_a_split_whose_held_out_values_are_read_keeps_the_fill_before_it(tmp_path: Path) -> None:
    assert ("fit_before_split", 5) in alarms(tmp_path, _SHOWN_SPLIT.format(use="print(a_held.describe())"))


def test_a_grid_search_tuning_an_imputer_of_each_column_evaluates_no_task_model(tmp_path: Path) -> None:
    xy = "feats, goal = known.drop(labels=name, axis=1), known[name]"
    assert alarms(tmp_path, _IMPUTER_GRID.format(xy=xy)) == set()


def test_a_grid_search_on_the_task_label_after_the_same_fill_is_reported(tmp_path: Path) -> None:
    xy = "feats, goal = known.drop(columns=['readmitted']), known['readmitted']"
    assert ("fit_outside_cv", 8) in alarms(tmp_path, _IMPUTER_GRID.format(xy=xy))
