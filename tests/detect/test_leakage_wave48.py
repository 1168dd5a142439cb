"""The static leakage analysis on the held-out wave 48 of public code (store x item forecasting on a wide table):
a feature builder called once per cut date computes group means over the days before its cut; every set holds the
same series and the split is in time, so those means are features of each set, not a fit before a split. Both
directions; every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage.cutdates import cut_window_reductions
from tests.detect.leakage_source import alarms

# one row per (shop, sku), one column per day; each set is cut at a date, its features read the days before the cut
# and its target is the week from the cut on
BUILDER = """\
from datetime import date, timedelta
import pandas as pd
import lightgbm as lgb
from sklearn.metrics import mean_squared_error

sales = pd.read_csv("sales_wide.csv").set_index(["shop", "sku"])
sales.columns = pd.to_datetime(sales.columns)


def window(table, end, days):
    return table[pd.date_range(end - timedelta(days=days), periods=days)]


def features_at(cut, with_target=True):
    feats = pd.DataFrame({"last_week": window(sales, cut, 7).mean(axis=1).values})
    per_sku = {STATISTIC}.groupby("sku").mean().to_frame("sku_avg")
    feats["sku_avg"] = sales.join(per_sku)["sku_avg"].values
    if with_target:
        return feats, sales[pd.date_range(cut, periods=7)].values[:, 0]
    return feats


first = date(2021, 5, 3)
parts_x, parts_y = [], []
for k in range(6):
    fx, fy = features_at(first - timedelta(days=7 * k))
    parts_x.append(fx)
    parts_y.append(fy)
X_train = pd.concat(parts_x)
y_train = pd.concat([pd.Series(p) for p in parts_y])
X_valid, y_valid = features_at({VALID_CUT})
model = lgb.LGBMRegressor().fit(X_train, y_train)
print(mean_squared_error(y_valid, model.predict(X_valid)))
"""
BEFORE_THE_CUT = "window(sales, cut, 28).mean(axis=1)"  # the 28 days before the cut
EVERY_DAY = "sales.mean(axis=1)"  # every day of the table, the validation week included
STATISTIC_LINE = 16


def _script(statistic: str, valid_cut: str = "date(2021, 5, 24)") -> str:
    return BUILDER.replace("{STATISTIC}", statistic).replace("{VALID_CUT}", valid_cut)


def test_group_means_of_the_days_before_each_cut_date_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, _script(BEFORE_THE_CUT)) == set()


def test_an_iso_date_string_is_a_cut_date_too(tmp_path: Path) -> None:
    assert alarms(tmp_path, _script(BEFORE_THE_CUT, "pd.Timestamp('2021-05-24')")) == set()


def test_group_means_over_every_day_of_the_table_still_leak(tmp_path: Path) -> None:
    # the builder ignores its cut: the validation week's sales shape the features of every set
    assert ("fit_before_split", STATISTIC_LINE) in alarms(tmp_path, _script(EVERY_DAY))


def test_a_builder_given_a_date_once_has_no_cut_parameter() -> None:
    import ast
    once = _script(BEFORE_THE_CUT).replace("features_at(first - timedelta(days=7 * k))", "features_at(k)")
    assert cut_window_reductions(ast.parse(once)) == frozenset()


def test_a_reduction_of_the_days_from_the_cut_on_is_not_taken_for_a_window() -> None:
    import ast
    # the target week (pd.date_range starting at the cut) is what the sets predict: its mean is kept as a fit
    tree = ast.parse(_script("sales[pd.date_range(cut, periods=7)].mean(axis=1)"))
    lines = {n.lineno for n in ast.walk(tree) if id(n) in cut_window_reductions(tree)}
    assert STATISTIC_LINE not in lines and 15 in lines  # line 15 (the week before the cut) still is
