"""A train+test stack cut back by whether the target is missing (partflags.py): the test file has no target, so
``both[both[target].notna()]`` is the training table again. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# the two files stacked for cleaning, cut back by the missing target, then a scaler on every training row and a
# cross-validation of those rows: the leak is the scaler outside the CV, not a fit on the test rows
RESTACKED_THEN_CV = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test], sort=False).reset_index(drop=True)
both["fare"] = both["fare"].clip(lower=0)
train = both[both["boarded"].notna()]
test = both[~both["boarded"].notna()].drop("boarded", axis=1)
y_train = train["boarded"]
X_train = StandardScaler().fit_transform(train.drop("boarded", axis=1))
print(cross_val_score(LogisticRegression(), X_train, y_train, cv=5).mean())
"""

# rows with a known age (from both files) fit the scaler of an age model: a fit on test rows, whatever the
# age column is to that model
KNOWN_AGE_FROM_BOTH = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test], sort=False).reset_index(drop=True)
known = both[both["age"].notna()]
scaler = StandardScaler().fit(known[["fare", "deck"]])
ager = RandomForestRegressor().fit(scaler.transform(known[["fare", "deck"]]), known["age"])
gaps = both["age"].isna()
both.loc[gaps, "age"] = ager.predict(scaler.transform(both.loc[gaps, ["fare", "deck"]]))
train = both[both["boarded"].notna()]
test = both[both["boarded"].isna()]
model = RandomForestClassifier().fit(train[["age", "fare"]], train["boarded"])
pd.DataFrame({"boarded": model.predict(test[["age", "fare"]])}).to_csv("submission.csv")
"""


def test_a_scaler_on_the_training_table_cut_back_by_its_target_is_fitted_outside_cv(tmp_path: Path) -> None:
    assert alarms(tmp_path, RESTACKED_THEN_CV) == {("fit_outside_cv", 13)}


def test_rows_with_a_known_feature_from_both_files_are_still_test_rows(tmp_path: Path) -> None:
    assert ("fit_on_test", 9) in alarms(tmp_path, KNOWN_AGE_FROM_BOTH)
