"""The static leakage analysis at stop 50 (recall on recurring misses): a table fitted on rows looked up per row by a
lambda handed to the built-in ``map`` (lambdareads.py), as its pandas ``apply``/``map`` twins already were; a method
inherited from a class of the module (inherited.py); the code after a branch that returns a cached result
(cachereturns.py). Both directions; every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# store sizes counted over the training and the competition test file stacked, looked up per row by the built-in map
STORE_COUNTS_MAPPED_BY_THE_BUILTIN = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test])
sizes = both["store"].value_counts()
both["store_size"] = list(map(lambda s: sizes[s], both["store"]))
fit_part = both[both["sold"].notnull()]
held_part = both[both["sold"].isnull()]
model = LogisticRegression().fit(fit_part[["store_size"]], fit_part["sold"])
held_part["guess"] = model.predict(held_part[["store_size"]])
"""

# the look-alikes: sizes counted over the training file alone and looked up for both files; a lambda that reads only
# its own argument
STORE_COUNTS_OF_TRAINING_ROWS_MAPPED_BY_THE_BUILTIN = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
sizes = train["store"].value_counts()
train["store_size"] = list(map(lambda s: sizes[s], train["store"]))
test["store_size"] = list(map(lambda s: sizes.get(s, 0), test["store"]))
test["store_code"] = list(map(lambda s: str(s)[:3], test["store"]))
model = LogisticRegression().fit(train[["store_size"]], train["sold"])
test["guess"] = model.predict(test[["store_size", "store_code"]])
"""


def test_counts_over_the_stacked_files_looked_up_by_the_builtin_map_are_a_leak(tmp_path: Path) -> None:
    assert ("fit_on_test", 7) in alarms(tmp_path, STORE_COUNTS_MAPPED_BY_THE_BUILTIN)


def test_training_counts_and_own_argument_lambdas_under_the_builtin_map_are_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, STORE_COUNTS_OF_TRAINING_ROWS_MAPPED_BY_THE_BUILTIN) == set()


# a base class drives the work: it returns the tables saved by an earlier run when they exist, else runs the
# subclass's calculate (frequencies over the training and the competition test file stacked) and saves its tables
FEATURE_CLASS_BEHIND_A_CACHE = """\
import os

import pandas as pd


def add_frequencies(first, second, cols):
    for col in cols:
        shares = pd.concat([first[col], second[col]]).value_counts(normalize=True).to_dict()
        first[col + "_share"] = first[col].map(shares)
        second[col + "_share"] = second[col].map(shares)


class FeatureBuilder:
    def build(self, again=False):
        if not again and os.path.exists("shares_train.pkl"):
            self.train = pd.read_pickle("shares_train.pkl")
            self.test = pd.read_pickle("shares_test.pkl")
            return self.train, self.test
        self.calculate()
        self.train.to_pickle("shares_train.pkl")
        self.test.to_pickle("shares_test.pkl")
        return self.train, self.test


class ShopShares(FeatureBuilder):
    def calculate(self):
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        add_frequencies(train, test, ["shop", "city"])
        self.train, self.test = train, test


if __name__ == "__main__":
    ShopShares().build()
"""

# the look-alike: the same framework, the shares counted over the training file alone and looked up for both
FEATURE_CLASS_OF_TRAINING_SHARES_BEHIND_A_CACHE = FEATURE_CLASS_BEHIND_A_CACHE.replace(
    "pd.concat([first[col], second[col]])", "first[col]")


def test_a_subclass_run_by_its_base_class_past_a_cache_read_is_followed(tmp_path: Path) -> None:
    assert ("fit_on_test", 8) in alarms(tmp_path, FEATURE_CLASS_BEHIND_A_CACHE)


def test_training_shares_in_the_same_framework_are_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, FEATURE_CLASS_OF_TRAINING_SHARES_BEHIND_A_CACHE) == set()


# each piece alone: the base class's driver without a cache (inheritance), and a cache read in a plain function
INHERITED_DRIVER_WITHOUT_A_CACHE = FEATURE_CLASS_BEHIND_A_CACHE.replace(
    """        if not again and os.path.exists("shares_train.pkl"):
            self.train = pd.read_pickle("shares_train.pkl")
            self.test = pd.read_pickle("shares_test.pkl")
            return self.train, self.test
""", "")

CACHED_FUNCTION = """\
import os

import pandas as pd


def shop_tables():
    if os.path.exists("shares_train.pkl"):
        return pd.read_pickle("shares_train.pkl"), pd.read_pickle("shares_test.pkl")
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    shares = pd.concat([train["shop"], test["shop"]]).value_counts(normalize=True)
    train["shop_share"] = train["shop"].map(shares)
    test["shop_share"] = test["shop"].map(shares)
    train.to_pickle("shares_train.pkl")
    test.to_pickle("shares_test.pkl")
    return train, test


shop_tables()
"""


def test_a_method_inherited_from_a_base_class_of_the_module_runs(tmp_path: Path) -> None:
    assert ("fit_on_test", 8) in alarms(tmp_path, INHERITED_DRIVER_WITHOUT_A_CACHE)


def test_the_computation_after_a_cached_return_is_followed(tmp_path: Path) -> None:
    assert ("fit_on_test", 11) in alarms(tmp_path, CACHED_FUNCTION)
