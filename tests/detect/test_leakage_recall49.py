"""The static leakage analysis at stop 49 (recall on recurring misses): a statistic written by hand over a helper's
held-out parameter and returned in a feature table (helperstats.py); a count or statistic of another table taken
inside a lambda handed to ``map``/``apply`` (lambdastats.py). Both directions; every example is written for this
test."""

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


# the look-alike: a method building a results table of the outer splits' accuracies (named for the test splits) from
# the records the object read; no parameter hands it held-out rows
RESULTS_TABLE_OF_TEST_SPLITS = """\
import pandas as pd


class Study:
    def __init__(self, path):
        self.results = pd.read_csv(path)

    def summary(self):
        res_test = self.results[self.results["inner_split"] == -1].reset_index()
        res_test["acc_test"] = [right.mean() for right in res_test["pred_right_test"]]
        return res_test
"""

# family sizes looked up in counts of surnames over the training and the competition test file stacked, inside a lambda
SURNAME_COUNTS_IN_A_LAMBDA = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("survived")
train["family"] = train["surname"].map(lambda s: pd.concat([train["surname"], test["surname"]]).value_counts()[s])
test["family"] = test["surname"].map(lambda s: pd.concat([train["surname"], test["surname"]]).value_counts()[s])
model = RandomForestClassifier().fit(train[["family"]], y)
model.predict(test[["family"]])
"""

# the look-alikes: counts over the training rows alone; a flag against a mean over the stack (a threshold); a
# lambda that only reads its own argument
SURNAME_COUNTS_OF_TRAINING_ROWS_IN_A_LAMBDA = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("survived")
both = pd.concat([train, test])
train["family"] = train["surname"].map(lambda s: train["surname"].value_counts()[s])
test["family"] = test["surname"].map(lambda s: train["surname"].value_counts()[s])
train["rich"] = train["fare"].apply(lambda f: 1 if f > both["fare"].mean() else 0)
test["rich"] = test["fare"].apply(lambda f: int(f > both["fare"].mean()))
train["initial"] = train["surname"].map(lambda s: s[0].upper())
model = RandomForestClassifier().fit(train[["family", "rich"]], y)
model.predict(test[["family", "rich"]])
"""


def test_a_results_table_of_test_split_scores_built_by_a_method_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, RESULTS_TABLE_OF_TEST_SPLITS) == set()


def test_counts_over_the_stacked_files_inside_a_mapped_lambda_are_a_leak(tmp_path: Path) -> None:
    assert {("fit_on_test", 7), ("fit_on_test", 8)} <= alarms(tmp_path, SURNAME_COUNTS_IN_A_LAMBDA)


def test_training_counts_thresholds_and_own_argument_lambdas_are_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, SURNAME_COUNTS_OF_TRAINING_ROWS_IN_A_LAMBDA) == set()
