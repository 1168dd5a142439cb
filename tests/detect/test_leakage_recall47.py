"""The static leakage analysis at stop 47 (recall on recurring misses): a feature builder's cut date read through a
row mask bound to a name. Both directions; every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

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


def test_means_through_a_named_mask_of_the_days_before_the_cut_are_that_sets_feature(tmp_path: Path) -> None:
    assert alarms(tmp_path, CUT_MASK_NAMED) == set()


def test_means_through_a_named_mask_of_the_days_from_the_cut_on_are_a_leak(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in alarms(tmp_path, CUT_MASK_NAMED_ONWARDS)
