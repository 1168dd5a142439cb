"""The static leakage analysis on the misses that recur across the corpus (stop 47): a helper whose guard clause
hands back an empty placeholder, and a cut date's row mask bound to a name. Both directions; every example is
written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# a feature builder that starts with a guard clause returning an empty frame, then scales its whole input; the
# caller builds the training and the competition test rows stacked
GUARDED_BUILDER_ON_STACKED_ROWS = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import MinMaxScaler


def build(frame):
    if frame.empty:
        return pd.DataFrame(columns=["month", "units"])
    frame = frame.copy()
    frame[["lag1"]] = MinMaxScaler().fit_transform(frame[["lag1"]])
    return frame


train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = build(pd.concat([train, test]))
fit_part, held = both.iloc[:len(train)], both.iloc[len(train):]
model = Ridge().fit(fit_part[["lag1"]], fit_part["units"])
print(model.score(held[["lag1"]], held["units"]))
"""

# the same builder called on each part alone, each with a scaler of its own rows' range only for the training part
GUARDED_BUILDER_PER_PART = GUARDED_BUILDER_ON_STACKED_ROWS.replace(
    "both = build(pd.concat([train, test]))\nfit_part, held = both.iloc[:len(train)], both.iloc[len(train):]",
    "fit_part, held = build(train), test")

# a guard that hands back the caller's own frame is another result, not a placeholder: the fit after it may not run
GUARD_RETURNING_THE_INPUT = GUARDED_BUILDER_ON_STACKED_ROWS.replace(
    'return pd.DataFrame(columns=["month", "units"])', "return frame")

# a builder that takes a cut date: per-store means over the rows before the cut, through a named mask, built for
# two cut dates, then a random split of one set
CUT_MASK_NAMED = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split


def build(frame, cut):
    known = frame["date"] < cut
    means = frame[known].groupby("store")["units"].mean().rename("store_mean")
    return frame.join(means, on="store")


sales = pd.read_csv("units.csv", parse_dates=["date"])
a = build(sales, pd.Timestamp("2024-01-01"))
b = build(sales, pd.Timestamp("2024-02-01"))
X_tr, X_te, y_tr, y_te = train_test_split(a[["store_mean"]], a["units"])
model = Ridge().fit(X_tr, y_tr)
print(model.score(X_te, y_te))
"""

# the same builder whose named mask reads the days from the cut on: the window the cut is meant to hide
CUT_MASK_NAMED_ONWARDS = CUT_MASK_NAMED.replace('known = frame["date"] < cut', 'known = frame["date"] >= cut')


def test_a_guard_clause_returning_an_empty_frame_does_not_hide_the_fit_after_it(tmp_path: Path) -> None:
    assert ("fit_on_test", 10) in alarms(tmp_path, GUARDED_BUILDER_ON_STACKED_ROWS)


def test_the_guarded_builder_called_on_the_training_part_alone_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, GUARDED_BUILDER_PER_PART) == set()


def test_a_guard_returning_the_input_still_ends_the_function(tmp_path: Path) -> None:
    assert alarms(tmp_path, GUARD_RETURNING_THE_INPUT) == set()


def test_means_through_a_named_mask_of_the_days_before_the_cut_are_that_sets_feature(tmp_path: Path) -> None:
    assert alarms(tmp_path, CUT_MASK_NAMED) == set()


def test_means_through_a_named_mask_of_the_days_from_the_cut_on_are_a_leak(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in alarms(tmp_path, CUT_MASK_NAMED_ONWARDS)
