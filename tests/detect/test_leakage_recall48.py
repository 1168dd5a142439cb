"""The static leakage analysis at stop 48 (recall on recurring misses): NumPy's index-trick row stack ``np.r_[a, b]``
read as the rows of both items, like ``np.vstack``; column-name lists handed back by a helper function read as
column names. Both directions; every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# a rank scaler fitted on the training file's rows and the competition test file's rows joined by np.r_, cut back by
# position; the test part is then predicted
RANKS_ON_BOTH_FILES = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import QuantileTransformer

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("price").values
X = train.values
X_test = test.values
n_train = X.shape[0]
ranked = QuantileTransformer(output_distribution="normal").fit_transform(np.r_[X, X_test])
X = ranked[:n_train]
X_test = ranked[n_train:]
model = Ridge().fit(X, y)
pd.DataFrame({"price": model.predict(X_test)}).to_csv("submission.csv")
"""

# the same files, the scaler fitted on the training rows alone; np.r_ only joins the two transformed parts for a plot
RANKS_ON_TRAINING_ROWS = """\
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from sklearn.linear_model import Ridge
from sklearn.preprocessing import QuantileTransformer

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("price").values
ranks = QuantileTransformer(output_distribution="normal").fit(train.values)
X = ranks.transform(train.values)
X_test = ranks.transform(test.values)
plt.hist(np.r_[X, X_test][:, 0])
model = Ridge().fit(X, y)
pd.DataFrame({"price": model.predict(X_test)}).to_csv("submission.csv")
"""

# a hand-written scaler class (fit_transform of its own) fitted on np.r_ of the two files
HAND_SCALER_ON_BOTH_FILES = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge


class Standardise:
    def fit(self, x):
        self.centre = x.mean(axis=0)
        self.spread = x.std(axis=0)
        return self

    def transform(self, x):
        return (x - self.centre) / self.spread

    def fit_transform(self, x):
        return self.fit(x).transform(x)


train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train.pop("price").values
n_train = len(train)
both = Standardise().fit_transform(np.r_[train.values, test.values])
model = Ridge().fit(both[:n_train], y)
pd.DataFrame({"price": model.predict(both[n_train:])}).to_csv("submission.csv")
"""


def test_a_scaler_fitted_on_np_r_of_the_training_and_test_files_is_a_fit_on_test(tmp_path: Path) -> None:
    assert alarms(tmp_path, RANKS_ON_BOTH_FILES) == {("fit_on_test", 12)}


def test_np_r_of_parts_transformed_by_a_scaler_fitted_on_the_training_rows_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, RANKS_ON_TRAINING_ROWS) == set()


def test_a_hand_written_scaler_fitted_on_np_r_of_both_files_is_a_fit_on_test(tmp_path: Path) -> None:
    assert alarms(tmp_path, HAND_SCALER_ON_BOTH_FILES) == {("fit_on_test", 23)}


# a helper sorts the columns by dtype and hands both lists back (the head of the examples below)
DTYPE_HELPER = """\
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold


def split_by_dtype(frame):
    numeric = list(frame.select_dtypes(include=["float64"]).columns)
    text = list(frame.select_dtypes(include=["object"]).columns)
    return numeric, text


houses = pd.read_csv("houses.csv")
num_cols, text_cols = split_by_dtype(houses)
"""

# the numeric columns imputed with medians of every row, then a hand-written KFold loop scores each fold
HELPER_LISTS_THEN_FOLDS = DTYPE_HELPER + """\
houses[num_cols] = SimpleImputer(strategy="median").fit_transform(houses[num_cols])
for fit_rows, check_rows in KFold(4).split(houses):
    model = Ridge().fit(houses.loc[fit_rows, num_cols], houses.loc[fit_rows, "price"])
    print(mean_absolute_error(houses.loc[check_rows, "price"], model.predict(houses.loc[check_rows, num_cols])))
"""

# the same helper returning one list (a bare value)
HELPER_ONE_LIST_THEN_FOLDS = HELPER_LISTS_THEN_FOLDS.replace(
    "    return numeric, text", "    return numeric").replace(
    "num_cols, text_cols = split_by_dtype(houses)", "num_cols = split_by_dtype(houses)")

# the same helper, the imputer fitted inside each fold on that fold's training rows
HELPER_LISTS_IMPUTED_PER_FOLD = DTYPE_HELPER + """\
for fit_rows, check_rows in KFold(4).split(houses):
    part = houses.loc[fit_rows]
    held = houses.loc[check_rows]
    filler = SimpleImputer(strategy="median").fit(part[num_cols])
    model = Ridge().fit(filler.transform(part[num_cols]), part["price"])
    print(mean_absolute_error(held["price"], model.predict(filler.transform(held[num_cols]))))
"""


def test_an_imputer_on_columns_a_helper_hands_back_before_the_fold_loop_is_a_fit_outside_cv(tmp_path: Path) -> None:
    assert alarms(tmp_path, HELPER_LISTS_THEN_FOLDS) == {("fit_outside_cv", 16)}


def test_one_column_list_a_helper_hands_back_is_read_as_column_names_too(tmp_path: Path) -> None:
    assert alarms(tmp_path, HELPER_ONE_LIST_THEN_FOLDS) == {("fit_outside_cv", 16)}


def test_an_imputer_fitted_per_fold_on_columns_a_helper_hands_back_is_silent(tmp_path: Path) -> None:
    assert alarms(tmp_path, HELPER_LISTS_IMPUTED_PER_FOLD) == set()
