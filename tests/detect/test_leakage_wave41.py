"""The static leakage analysis on the kinds held-out wave 41 of public code showed (energy forecasting, insurance,
genomics, MLOps course code, Kaggle text pairs), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "meters.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# gaps of the held-out climate table filled in place (DataFrame.update) with its own per-station daily means,
# inside a helper the script calls on that table
UPDATE_FILL_ON_TEST = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor


def patch_climate(table):
    table = table.set_index(["station", "doy"])
    daily = pd.DataFrame(table.groupby(["station", "doy"])["humidity"].mean(), columns=["humidity"])
    table.update(daily, overwrite=False)
    return table.reset_index()


usage = pd.read_csv("usage_train.csv")
target = usage.pop("kwh")
model = GradientBoostingRegressor().fit(usage, target)
climate_test = patch_climate(pd.read_csv("climate_test.csv"))
later = pd.read_csv("usage_test.csv").merge(climate_test, on=["station", "doy"])
print(model.predict(later))
"""

# look-alikes: the held-out table updated from means of the training table; a dict's update; a table updated
# from a constant frame
UPDATE_SILENT = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

usage = pd.read_csv("usage_train.csv")
target = usage.pop("kwh")
model = GradientBoostingRegressor().fit(usage, target)
daily = usage.groupby("station")[["humidity"]].mean()
held = pd.read_csv("usage_test.csv").set_index("station")
held.update(daily, overwrite=False)
settings = {"depth": 3}
settings.update({"depth": 4})
held.update(pd.DataFrame({"humidity": [0.5]}), overwrite=False)
print(model.predict(held), settings)
"""


def test_update_with_a_statistic_of_the_held_out_table_is_a_fit_on_test(tmp_path):
    assert _alarms(tmp_path, UPDATE_FILL_ON_TEST) == {("fit_on_test", 7)}


def test_update_from_training_statistics_or_constants_is_silent(tmp_path):
    assert _alarms(tmp_path, UPDATE_SILENT) == set()


# trailing windows of the held-out table reached through a variable (as inline s.rolling(3).mean()): each row's own
# past, no statistic of the table; a name bound to a window in one place and to the table in another stays a fit
WINDOW_THROUGH_A_NAME = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor


def add_lags(table, width=3):
    by_station = table.groupby("station")
    cols = ["humidity", "wind"]
    rolled = by_station[cols].rolling(window=width, min_periods=0)
    lag_mean = rolled.mean().reset_index().astype(np.float32)
    spread = table["wind"].expanding()
    table["wind_sd"] = spread.std()
    for col in cols:
        table[f"{col}_mean{width}"] = lag_mean[col]


usage = pd.read_csv("usage_train.csv")
target = usage.pop("kwh")
model = GradientBoostingRegressor().fit(usage, target)
held = pd.read_csv("usage_test.csv")
add_lags(held)
block = held["wind"].rolling(6)
block = held["wind"]
held["wind_c"] = held["wind"] - block.mean()
print(model.predict(held))
"""


def test_a_window_reached_through_a_name_is_row_local_but_a_rebound_name_is_not(tmp_path):
    assert _alarms(tmp_path, WINDOW_THROUGH_A_NAME) == {("fit_on_test", 24)}


# a helper that fits its encoder only under a flag: the caller passes the flag for the training month alone
# (silent), or passes it for the held-out month too (a fit on test)
FLAG_GUARDED_FIT = """\
import pandas as pd
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error


def encode(df, dv, fit_dv=False):
    dicts = df[["zone", "miles"]].to_dict(orient="records")
    if fit_dv:
        X = dv.fit_transform(dicts)
    else:
        X = dv.transform(dicts)
    return X, dv


jan = pd.read_parquet("trips_jan.parquet")
mar = pd.read_parquet("trips_test.parquet")
dv = DictVectorizer()
X_train, dv = encode(jan, dv, fit_dv=True)
X_test, _ = encode(mar, dv, fit_dv={flag})
lr = LinearRegression().fit(X_train, jan["minutes"])
print(mean_squared_error(mar["minutes"], lr.predict(X_test)))
"""


def test_a_fit_under_a_flag_the_caller_passes_false_for_the_test_rows_is_silent(tmp_path):
    assert _alarms(tmp_path, FLAG_GUARDED_FIT.format(flag="False")) == set()


def test_a_fit_under_a_flag_the_caller_passes_true_for_the_test_rows_is_a_fit_on_test(tmp_path):
    assert _alarms(tmp_path, FLAG_GUARDED_FIT.format(flag="True")) == {("fit_on_test", 10)}


# a literal flag that does not switch between fitting and transforming (a cache or a log switch) still runs both
# branches: the branch not taken may be what wrote the cache the other one reads
OTHER_FLAG_RUNS_BOTH = """\
import pandas as pd
from sklearn.linear_model import LinearRegression


def prepare(df, cached=True):
    if cached:
        df = pd.read_pickle("prepared.pkl")
    else:
        df = df.fillna(df.mean())
        df.to_pickle("prepared.pkl")
    return df


jan = pd.read_parquet("trips_jan.parquet")
lr = LinearRegression().fit(jan.drop(columns="minutes"), jan["minutes"])
mar = prepare(pd.read_parquet("trips_test.parquet"))
print(lr.predict(mar.drop(columns="minutes")))
"""


def test_a_literal_flag_that_is_no_fit_switch_runs_both_branches(tmp_path):
    assert _alarms(tmp_path, OTHER_FLAG_RUNS_BOTH) == {("fit_on_test", 9)}
