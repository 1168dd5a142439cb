"""The static leakage analysis on the kinds held-out wave 50 showed (Kaggle kernels of many authors saved in one
folder), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# a Box-Cox lambda estimated by boxcox_normmax over train and test stacked, typed into boxcox1p
LAMBDA_ON_STACK = """\
import pandas as pd
from scipy.stats import boxcox_normmax
from scipy.special import boxcox1p
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score

shop = pd.read_csv("train.csv")
fresh = pd.read_csv("test.csv")
price = shop.pop("price")
both = pd.concat([shop, fresh]).reset_index(drop=True)
for col in ["area", "lot"]:
    both[col] = boxcox1p(both[col], {lam})
X = both.iloc[:len(shop)]
print(cross_val_score(Ridge(), X, price).mean())
Ridge().fit(X, price).predict(both.iloc[len(shop):])
"""


def test_a_lambda_estimated_on_train_and_test_stacked_is_a_fit_on_test(tmp_path: Path) -> None:
    assert ("fit_on_test", 12) in alarms(tmp_path, LAMBDA_ON_STACK.format(lam="boxcox_normmax(both[col] + 1)"))


def test_a_lambda_written_out_stays_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, LAMBDA_ON_STACK.format(lam="0.15")) == set()


# statistics across one row's own columns (agg with axis=1) against the same statistic down the rows
ROW_AGGREGATES = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

book = pd.read_csv("book.csv")
target = book.pop("move")
prices = ["bid", "ask", "mid"]
for func in ["mean", "std"]:
    book[f"prices_{{func}}"] = book[prices].agg(func, axis={axis})
a, b, ya, yb = train_test_split(book, target)
print(Ridge().fit(a, ya).score(b, yb))
"""


def test_a_row_wise_agg_is_a_per_row_feature(tmp_path: Path) -> None:
    assert alarms(tmp_path, ROW_AGGREGATES.format(axis=1)) == set()


def test_the_same_agg_down_the_rows_is_a_fit_before_the_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, ROW_AGGREGATES.format(axis=0))


# per-series aggregates of a robot's readings (one series = one sample) against per-floor aggregates (a floor is
# shared by many series)
PER_SERIES = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score

readings = pd.read_csv("readings.csv")
fresh = pd.read_csv("test_readings.csv")
labels = pd.read_csv("labels.csv")


def summarise(frame):
    table = pd.DataFrame()
    for col in ["gyro_x", "gyro_y"]:
        table[col + "_mean"] = frame.groupby(["{key}"])[col].mean()
    return table


train_table = summarise(readings)
test_table = summarise(fresh)
model = RandomForestClassifier().fit(train_table, labels["surface"])
print(model.predict(test_table))
"""


def test_per_series_aggregates_are_each_sample_s_own_rows(tmp_path: Path) -> None:
    assert alarms(tmp_path, PER_SERIES.format(key="series_id")) == set()


def test_per_floor_aggregates_of_the_test_rows_are_a_fit_on_test(tmp_path: Path) -> None:
    assert ("fit_on_test", 13) in alarms(tmp_path, PER_SERIES.format(key="floor_id"))


# a group's gaps filled with a statistic written as a function call on the lambda's argument
GROUP_FILL = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

riders = pd.read_csv("riders.csv")
label = riders.pop("arrived")
riders["deck"] = riders.groupby(["planet", "solo"])["deck"].transform(lambda x: x.fillna({fill}))
riders["deck"] = riders["deck"].astype("category").cat.codes
a, b, ya, yb = train_test_split(riders[["deck", "age"]], label)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""


def test_a_group_mode_written_as_a_function_call_is_a_fit_before_the_split(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in alarms(tmp_path, GROUP_FILL.format(fill="pd.Series.mode(x)[0]"))
    assert ("fit_before_split", 8) in alarms(tmp_path, GROUP_FILL.format(fill="np.median(x)"))


def test_a_constant_or_a_forward_fill_in_the_group_stays_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, GROUP_FILL.format(fill="'unknown'")) == set()
    assert alarms(tmp_path, GROUP_FILL.format(fill="x.ffill()")) == set()
