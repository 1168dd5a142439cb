"""The static leakage analysis at stop 50 (recall on recurring misses): a table fitted on rows looked up per row by a
lambda handed to the built-in ``map`` (lambdareads.py), as its pandas ``apply``/``map`` twins already were. Both
directions; every example is written for this test."""

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
