"""The static leakage analysis on the kinds held-out wave 53 of public code showed (notebook collections of many
authors: per-group totals beside per-group means in a feature helper run on the test file, counts over a train+test
concatenation written inside a ``map`` lambda), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# a feature helper adds per-shop totals and means of the visits of the frame it is given; it runs on the test file
SHOP_TOTALS_ON_THE_TEST_FILE = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor


def shop_features(frame):
    frame["shop_visits_total"] = frame.groupby("shop")["visits"].transform("sum")
    frame["shop_visits_mean"] = frame.groupby("shop")["visits"].transform("mean")
    return frame


past = shop_features(pd.read_csv("train.csv"))
upcoming = shop_features(pd.read_csv("test.csv"))
cols = ["visits", "shop_visits_total", "shop_visits_mean"]
reg = GradientBoostingRegressor().fit(past[cols], past["revenue"])
upcoming["revenue"] = reg.predict(upcoming[cols])
upcoming.to_csv("submission.csv", index=False)
"""

# the same helper keeps only per-row arithmetic: each row's own visits, no statistic of other rows
SHOP_ROW_ARITHMETIC_ON_THE_TEST_FILE = SHOP_TOTALS_ON_THE_TEST_FILE.replace(
    'frame.groupby("shop")["visits"].transform("sum")', 'frame["visits"] * 2').replace(
    'frame.groupby("shop")["visits"].transform("mean")', 'frame["visits"] + 1')

# a per-customer total over a customer's own purchases (grouped by an id column): the customer's own rows
CUSTOMER_OWN_TOTAL_ON_THE_TEST_FILE = SHOP_TOTALS_ON_THE_TEST_FILE.replace(
    'frame.groupby("shop")["visits"].transform("sum")', 'frame.groupby("customer_id")["visits"].transform("sum")'
).replace('frame.groupby("shop")["visits"].transform("mean")', 'frame["visits"] + 1')

# each row's own columns totalled with the same string form (agg('sum', axis=1)): no other row takes part
ROW_TOTAL_ON_THE_TEST_FILE = SHOP_TOTALS_ON_THE_TEST_FILE.replace(
    'frame.groupby("shop")["visits"].transform("sum")', 'frame[["visits", "returns"]].agg("sum", axis=1)').replace(
    'frame.groupby("shop")["visits"].transform("mean")', 'frame["visits"] + 1')


def test_a_per_group_total_run_on_the_test_file_is_a_statistic_of_its_rows(tmp_path: Path) -> None:
    found = alarms(tmp_path, SHOP_TOTALS_ON_THE_TEST_FILE)
    assert ("fit_on_test", 6) in found and ("fit_on_test", 7) in found


def test_per_row_arithmetic_in_the_helper_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, SHOP_ROW_ARITHMETIC_ON_THE_TEST_FILE) == set()


def test_a_total_per_id_is_the_entitys_own_rows(tmp_path: Path) -> None:
    assert alarms(tmp_path, CUSTOMER_OWN_TOTAL_ON_THE_TEST_FILE) == set()


def test_a_row_wise_sum_on_the_test_file_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, ROW_TOTAL_ON_THE_TEST_FILE) == set()


# train.csv beside an unlabelled test.csv: train.csv split into fit/validation parts, yet the model is trained on
# the whole of train.csv and then scored on the validation part it saw
WHOLE_TRAINING_FILE_MODEL_SCORED_ON_ITS_VALIDATION = """\
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

lots = pd.read_csv("train.csv")
unseen = pd.read_csv("test.csv")
target = lots["price"]
cols = lots[["rooms", "area"]]
fit_x, check_x, fit_y, check_y = train_test_split(cols, target, train_size=0.8, random_state=7)
reg = LinearRegression()
reg.fit(cols, target)
print(mean_absolute_error(check_y, reg.predict(check_x)))
pd.DataFrame({"price": reg.predict(unseen[["rooms", "area"]])}).to_csv("submission.csv", index=False)
"""

# the same notebook trains on the fit part only and scores the validation part once
FIT_PART_MODEL_SCORED_ON_THE_VALIDATION = WHOLE_TRAINING_FILE_MODEL_SCORED_ON_ITS_VALIDATION.replace(
    "reg.fit(cols, target)", "reg.fit(fit_x, fit_y)")

# trained on the fit part and scored on the validation part, then refitted on all of train.csv for the submission
# only (the unlabelled test rows are all it predicts after the refit)
REFIT_ON_THE_WHOLE_FILE_FOR_THE_SUBMISSION_ONLY = FIT_PART_MODEL_SCORED_ON_THE_VALIDATION.replace(
    'pd.DataFrame({"price"', 'reg.fit(cols, target)\npd.DataFrame({"price"')


def test_a_model_trained_on_the_whole_training_file_scores_its_own_validation_rows(tmp_path: Path) -> None:
    assert ("trained_on_test", 12) in alarms(tmp_path, WHOLE_TRAINING_FILE_MODEL_SCORED_ON_ITS_VALIDATION)


def test_a_model_trained_on_the_fit_part_and_scored_on_the_validation_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, FIT_PART_MODEL_SCORED_ON_THE_VALIDATION) == set()


def test_a_refit_on_the_whole_file_that_predicts_only_the_test_file_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, REFIT_ON_THE_WHOLE_FILE_FOR_THE_SUBMISSION_ONLY) == set()


def test_a_total_per_listed_id_key_is_the_entitys_own_rows(tmp_path: Path) -> None:
    listed = CUSTOMER_OWN_TOTAL_ON_THE_TEST_FILE.replace('groupby("customer_id")', 'groupby(["customer_id"])')
    assert alarms(tmp_path, listed) == set()
