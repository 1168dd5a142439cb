"""The static leakage analysis on the kinds held-out wave 57 of public code showed (top Kaggle solutions of tabular
competitions: out-of-fold stacking helpers, feature tables built on train and test stacked), in both directions.
Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# the folds' predictions for the test rows are kept in an array named for the test rows and averaged: an ensemble
FOLD_PREDICTIONS_AVERAGED = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("price").values
n_train, n_test = len(train), len(test)
folds = KFold(n_splits=4, shuffle=True, random_state=1)


def stacked_feature(reg, rows, y, held):
    first_level = np.zeros((n_train,))
    per_fold_test = np.empty((4, n_test))
    for k, (fit_idx, out_idx) in enumerate(folds.split(rows)):
        reg.fit(rows[fit_idx], y[fit_idx])
        first_level[out_idx] = reg.predict(rows[out_idx])
        per_fold_test[k, :] = reg.predict(held)
    return first_level, per_fold_test.mean(axis=0)


both = pd.concat([train, test])
tr_pred, te_pred = stacked_feature(Ridge(), np.array(both)[:n_train], y, np.array(both)[n_train:])
both["ridge"] = np.concatenate([tr_pred, te_pred])
final = Ridge().fit(both[:n_train], y)
print(final.predict(both[n_train:]))
"""

# a buffer named for the test rows that is filled with the test rows' own values: its mean is a statistic of them
TEST_ROWS_COPIED_INTO_A_BUFFER = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("price").values
x_test = np.zeros((len(test), 3))
for i in range(len(test)):
    x_test[i, :] = test.values[i, :3]
centre = x_test.mean(axis=0)
reg = Ridge().fit(train.values[:, :3] - centre, y)
print(reg.predict(x_test - centre))
"""


# distinct cities per shop over train and test stacked, the pandas method passed unbound to agg
DISTINCT_PER_GROUP_ON_THE_STACK = """\
import pandas as pd
from sklearn.linear_model import Ridge

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test])
spread = both[["shop", "city"]].groupby("shop").agg(pd.Series.nunique).rename(columns={"city": "cities"})
both = both.merge(spread, on="shop", how="left")
reg = Ridge().fit(both[: len(train)].drop(columns=["sales"]), train["sales"])
print(reg.predict(both[len(train):].drop(columns=["sales"])))
"""

# the same count taken over the training rows alone and mapped onto both tables: no test row is counted
DISTINCT_PER_GROUP_ON_TRAIN = """\
import pandas as pd
from sklearn.linear_model import Ridge

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
spread = train[["shop", "city"]].groupby("shop").agg(pd.Series.nunique).rename(columns={"city": "cities"})
train = train.merge(spread, on="shop", how="left")
test = test.merge(spread, on="shop", how="left")
reg = Ridge().fit(train.drop(columns=["sales"]), train["sales"])
print(reg.predict(test))
"""

# distinct artists per listener counted by a lambda over the train and test plays appended together
DISTINCT_BY_A_LAMBDA_ON_THE_STACK = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

plays = pd.read_csv("train.csv")
later = pd.read_csv("test.csv")
both = plays[["listener", "artist"]].append(later[["listener", "artist"]])
variety = both.groupby("listener").apply(lambda rows: len(set(rows["artist"].values)))
plays["variety"] = plays["listener"].map(variety)
later["variety"] = later["listener"].map(variety)
clf = LogisticRegression().fit(plays[["variety"]], plays["replayed"])
print(clf.predict(later[["variety"]]))
"""

# each listener's first artist taken by a lambda over the same stack: no count, nothing learnt across rows
FIRST_ITEM_BY_A_LAMBDA_ON_THE_STACK = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

plays = pd.read_csv("train.csv")
later = pd.read_csv("test.csv")
both = plays[["listener", "artist"]].append(later[["listener", "artist"]])
first = both.groupby("listener").apply(lambda rows: rows["artist"].values[0])
plays["first"] = plays["listener"].map(first)
later["first"] = later["listener"].map(first)
clf = LogisticRegression().fit(plays[["first"]], plays["replayed"])
print(clf.predict(later[["first"]]))
"""

def test_averaging_the_folds_predictions_for_the_test_rows_is_an_ensemble(tmp_path: Path) -> None:
    assert alarms(tmp_path, FOLD_PREDICTIONS_AVERAGED) == set()


def test_a_buffer_filled_with_the_test_rows_themselves_still_gives_a_statistic_of_them(tmp_path: Path) -> None:
    assert ("fit_on_test", 11) in alarms(tmp_path, TEST_ROWS_COPIED_INTO_A_BUFFER)


def test_a_distinct_count_per_group_passed_as_a_pandas_method_over_the_stack_is_found(tmp_path: Path) -> None:
    assert ("fit_on_test", 7) in alarms(tmp_path, DISTINCT_PER_GROUP_ON_THE_STACK)


def test_a_distinct_count_per_group_over_the_training_rows_alone_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, DISTINCT_PER_GROUP_ON_TRAIN) == set()


def test_a_distinct_count_written_as_a_lambda_over_the_stack_is_found(tmp_path: Path) -> None:
    assert ("fit_on_test", 7) in alarms(tmp_path, DISTINCT_BY_A_LAMBDA_ON_THE_STACK)


def test_a_lambda_taking_each_groups_first_item_over_the_stack_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, FIRST_ITEM_BY_A_LAMBDA_ON_THE_STACK) == set()
