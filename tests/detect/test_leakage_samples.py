"""Aggregates of one sample's own rows and first periods per key (issue 17, stop 36, wave 36new's two largest
false-alarm kinds), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.detect.data.leakage.samples import sample_key
from faultlib.findings import Severity

# readings of recorded dive segments: several rows per segment; the test file holds whole segments
DIVES = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

train = pd.read_csv("dives_train.csv")
test = pd.read_csv("dives_test.csv")
y = train["depth_reached"]
for frame in [train, test]:
    frame["temp_peak"] = frame.groupby({key})[{column}].transform("max")
    frame["temp_mean"] = frame.groupby({key})[{column}].transform("mean")
features = ["temp_peak", "temp_mean", "salinity"]
model = GradientBoostingRegressor().fit(train[features], y)
print(model.predict(test[features])[:5])
"""

# one row per sample built by .agg and merged back, keyed by a list of keys inside the sample
MERGED = """\
import pandas as pd
from sklearn.linear_model import Ridge

train = pd.read_csv("pairs_train.csv")
test = pd.read_csv("pairs_test.csv")
y = train["coupling"]

def per_sample(frame):
    stats = frame.groupby(["crystal_name", "site_index"])[["gap", "angle"]].agg(["mean", "std"]).reset_index()
    stats.columns = ["crystal_name", "site_index", "gap_mean", "gap_std", "angle_mean", "angle_std"]
    return frame.merge(stats, on=["crystal_name", "site_index"], how="left")

train = per_sample(train)
test = per_sample(test)
cols = ["gap_mean", "gap_std", "angle_mean", "angle_std"]
fitted = Ridge().fit(train[cols], y)
print(fitted.predict(test[cols])[:3])
"""

# months since each shop's first sale, over the training and test months stacked
FIRST_SALE = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor

sold = pd.read_csv("monthly.csv")
sold["since_first"] = sold["date_index"] - sold.groupby("shop_code")["date_index"].transform({how})
train = sold[sold.date_index < 30]
test = sold[sold.date_index == 30]
y = train["units"]
rf = RandomForestRegressor().fit(train[["since_first", "price"]], y)
print(rf.predict(test[["since_first", "price"]])[:3])
"""


def _alarms(tmp_path: Path, text: str) -> list:
    path = tmp_path / "kernel.py"
    path.write_text(text)
    report, _ = analyze_file(str(path))
    return [f for f in report.findings if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"]


@pytest.mark.parametrize("key", ['"segment_id"', '["sequence_no"]', '["sensor_slot", "segment_id"]', '"id"'])
def test_per_sample_statistics_of_a_feature_are_per_row_features(tmp_path: Path, key: str) -> None:
    assert _alarms(tmp_path, DIVES.format(key=key, column='"water_temp"')) == []


def test_a_per_sample_statistic_of_the_target_is_still_a_fit_on_the_test_rows(tmp_path: Path) -> None:
    found = _alarms(tmp_path, DIVES.format(key='"segment_id"', column='"depth_reached"'))
    assert {(f.kind, f.location.get("line")) for f in found} >= {("fit_on_test", 8), ("fit_on_test", 9)}


@pytest.mark.parametrize("key", ['"diver_id"', '"boat_name"', '["time_id"]'])
def test_statistics_per_a_cross_cutting_key_are_still_fits(tmp_path: Path, key: str) -> None:
    # a diver or a time step has rows in both files: the mean reads rows of other samples
    found = _alarms(tmp_path, DIVES.format(key=key, column='"water_temp"'))
    assert ("fit_on_test", 8) in {(f.kind, f.location.get("line")) for f in found}


def test_per_sample_aggregates_merged_back_raise_nothing(tmp_path: Path) -> None:
    assert _alarms(tmp_path, MERGED.replace("crystal_name", "molecule_name")) == []


def test_the_same_aggregates_per_a_category_are_still_fits(tmp_path: Path) -> None:
    kinds = {f.kind for f in _alarms(tmp_path, MERGED)}  # crystal_name: a kind of crystal, shared by rows
    assert "fit_on_test" in kinds


# one row per (sequence, subject) built from the readings, then scored by a row-wise cross-validation
PER_SEQUENCE = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

readings = pd.read_csv("readings.csv")
states = pd.read_csv("states.csv")
table = readings.groupby(["sequence", "subject"])[["gap", "angle"]].agg(["mean", "std"]).reset_index()
table.columns = ["sequence", "subject", "gap_mean", "gap_std", "angle_mean", "angle_std"]
table = table.merge(states, on="sequence")
y = table["state"]
print(cross_val_score(LogisticRegression(), table[["gap_mean", "gap_std", "angle_mean", "angle_std"]], y))
"""


def test_a_per_sample_table_keeps_the_entity_it_was_grouped_with(tmp_path: Path) -> None:
    # a subject has several sequences: a row-wise split puts a subject on both sides
    kinds = {f.kind for f in _alarms(tmp_path, PER_SEQUENCE)}
    assert "entity_across_split" in kinds and "fit_before_split" not in kinds and "fit_outside_cv" not in kinds


def test_first_period_per_key_is_a_reference_date(tmp_path: Path) -> None:
    assert _alarms(tmp_path, FIRST_SALE.format(how='"min"')) == []


def test_a_mean_of_the_period_per_key_is_still_a_statistic(tmp_path: Path) -> None:
    found = _alarms(tmp_path, FIRST_SALE.format(how='"mean"'))
    assert ("fit_before_split", 5) in {(f.kind, f.location.get("line")) for f in found}


@pytest.mark.parametrize(("name", "sample"), [
    ("molecule_name", True), ("breath_id", True), ("installation_id", True), ("PassengerGroup", True),
    ("id", True), ("sequence", True), ("stock_id", False), ("time_id", False), ("user_id", False),
    ("age_group", False), ("Neighborhood", False)])
def test_sample_keys(name: str, sample: bool) -> None:
    assert sample_key(name) is sample


# weekly footfall of kiosks: a mean per week encoded, kept only as last week's and the week before's values
WEEKLY = """\
import pandas as pd
from sklearn.linear_model import Ridge

weeks = pd.concat([pd.read_csv("weeks_train.csv"), pd.read_csv("weeks_test.csv")])

def add_lags(frame, steps, col):
    base = frame[["week_date", "kiosk", col]]
    for step in steps:
        later = base.copy()
        later.columns = ["week_date", "kiosk", col + "_prev_" + str(step)]
        later["week_date"] {move}
        frame = pd.merge(frame, later, on=["week_date", "kiosk"], how="left")
    return frame

group = weeks.groupby(["week_date", "district"]).agg({{"visitors": ["mean"]}})
group.columns = ["district_week_avg"]
group.reset_index(inplace=True)
weeks = pd.merge(weeks, group, on=["week_date", "district"], how="left")
weeks = add_lags(weeks, [1, 2], "district_week_avg")
{drop}
train = weeks[weeks.week_date < "2024-06-01"]
test = weeks[weeks.week_date >= "2024-06-01"]
cols = [c for c in train.columns if "_prev_" in c]
model = Ridge().fit(train[cols], train["visitors"])
print(model.predict(test[cols])[:4])
"""
_DROP = 'weeks.drop(["district_week_avg"], axis=1, inplace=True)'


def test_a_period_mean_used_only_through_its_lags_is_no_fit(tmp_path: Path) -> None:
    assert _alarms(tmp_path, WEEKLY.format(move="+= step", drop=_DROP)) == []


@pytest.mark.parametrize(("move", "drop"), [("+= step", "print(weeks.shape)"), ("= later['week_date']", _DROP)])
def test_a_period_mean_kept_unlagged_or_not_lagged_is_still_a_fit(tmp_path: Path, move: str, drop: str) -> None:
    found = {(f.kind, f.location.get("line")) for f in _alarms(tmp_path, WEEKLY.format(move=move, drop=drop))}
    assert ("fit_on_test", 15) in found  # the test file's weeks are in the mean
