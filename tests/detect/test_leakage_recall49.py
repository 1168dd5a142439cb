"""The static leakage analysis at stop 49 (recall on recurring misses): a statistic written by hand over a helper's
held-out parameter and returned in a feature table (helperstats.py). Both directions; every example is written for
this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# a feature module no script of its own calls: frequencies over the two files stacked, mapped onto both, returned
FREQUENCIES_OVER_BOTH_FILES = """\
import pandas as pd


def add_frequencies(train, test, cols):
    for col in cols:
        freq = pd.concat([train[col], test[col]]).value_counts(normalize=True)
        train[col + "_freq"] = train[col].map(freq)
        test[col + "_freq"] = test[col].map(freq)
    return train, test
"""

# a group mean over the test file's own rows, divided into its column and returned
TEST_FILE_OWN_GROUP_MEANS = """\
import pandas as pd


def relative_amounts(frame_train, frame_test):
    frame_train["amount_rel"] = frame_train["amount"] / frame_train.groupby("shop")["amount"].transform("mean")
    frame_test["amount_rel"] = frame_test["amount"] / frame_test.groupby("shop")["amount"].transform("mean")
    return frame_train, frame_test
"""

# the look-alike: the statistics over the training parameter only, applied to both; the test rows are only mapped
FREQUENCIES_OVER_TRAINING_ROWS = """\
import pandas as pd


def add_frequencies(train, test, cols):
    for col in cols:
        freq = train[col].value_counts(normalize=True)
        train[col + "_freq"] = train[col].map(freq)
        test[col + "_freq"] = test[col].map(freq)
    return train, test
"""

# the look-alike: a helper that returns a number over the test rows (an error's mean), a score and no feature table
MEAN_ERROR_ON_TEST_ROWS = """\
import pandas as pd


def mean_error(model, X_test, y_test):
    errors = (model.predict(X_test) - y_test).abs()
    return errors.mean()


def spread_of_test_amounts(test):
    return pd.concat([test["amount"], test["fee"]]).std()
"""


def test_frequencies_over_a_helpers_train_and_test_parameters_returned_are_a_leak(tmp_path: Path) -> None:
    assert ("fit_on_test", 6) in alarms(tmp_path, FREQUENCIES_OVER_BOTH_FILES)


def test_a_helpers_group_means_of_its_test_parameter_returned_are_a_leak(tmp_path: Path) -> None:
    assert alarms(tmp_path, TEST_FILE_OWN_GROUP_MEANS) == {("fit_on_test", 6)}


def test_frequencies_of_the_training_parameter_mapped_onto_the_test_rows_are_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, FREQUENCIES_OVER_TRAINING_ROWS) == set()


def test_a_number_over_the_test_rows_returned_by_a_helper_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, MEAN_ERROR_ON_TEST_ROWS) == set()
