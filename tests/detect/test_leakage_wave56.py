"""The static leakage analysis on the kinds held-out wave 56 of public code showed (Kaggle notebooks of many
authors: a stack cut back into its tables by their own keys, a rolling mean drawn in a chart, the boosters' own
cross-validation, an imputer that fills a constant), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# the tables are stacked for a row-wise feature, then each is taken back by its own days: the scaler sees train only
STACK_CUT_BACK_BY_ITS_KEYS = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test])
both["spread"] = both["high"] - both["low"]
train = both[both["day"].isin(train["day"])]
test = both[both["day"].isin(test["day"])]
scaler = StandardScaler()
fit_rows = scaler.fit_transform(train.drop(columns=["gain"]))
reg = Ridge().fit(fit_rows, train["gain"])
print(reg.score(scaler.transform(test.drop(columns=["gain"])), test["gain"]))
"""

# the same cut written with polars
STACK_CUT_BACK_BY_ITS_KEYS_POLARS = """\
import polars as pl
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

train = pl.read_csv("train.csv")
test = pl.read_csv("test.csv")
both = pl.concat([train, test], how="vertical")
train = both.filter(pl.col("day").is_in(train.get_column("day")))
test = both.filter(pl.col("day").is_in(test.get_column("day")))
scaler = StandardScaler()
fit_rows = scaler.fit_transform(train.drop("gain"))
reg = Ridge().fit(fit_rows, train.get_column("gain"))
print(reg.score(scaler.transform(test.drop("gain")), test.get_column("gain")))
"""

# the scaler is fitted on the stack before it is cut back by the keys: a fit on the future rows, still reported
SCALER_ON_THE_STACK_BEFORE_THE_CUT = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.preprocessing import StandardScaler

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train, test])
both[["high", "low"]] = StandardScaler().fit_transform(both[["high", "low"]])
train = both[both["day"].isin(train["day"])]
test = both[both["day"].isin(test["day"])]
reg = Ridge().fit(train.drop(columns=["gain"]), train["gain"])
print(reg.score(test.drop(columns=["gain"]), test["gain"]))
"""

# a rolling mean of the label over rows sorted by one feature, only drawn: the rows are no series
ROLLING_MEAN_ONLY_DRAWN = """\
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

guests = pd.read_csv("guests.csv")
X = guests.drop(columns="stayed")
y = guests["stayed"]
for col in X.columns:
    ordered = pd.DataFrame({col: X[col].values, "stayed": y.values}).sort_values(col)
    curve = pd.DataFrame(ordered.stayed.rolling(200).mean())
    curve = curve[curve.stayed.notna()]
    plt.plot(curve.index, curve["stayed"])
X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3)
forest = RandomForestClassifier().fit(X_a, y_a)
print(forest.score(X_b, y_b))
"""

# the rolling mean becomes a feature of the table that is split with shuffling: a series, still reported
ROLLING_MEAN_AS_A_FEATURE = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

sales = pd.read_csv("sales.csv")
smooth = sales["units"].rolling(7).mean()
sales["units_7d"] = smooth
sales = sales.dropna()
X = sales.drop(columns="next_units")
y = sales["next_units"]
X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.3)
forest = RandomForestRegressor().fit(X_a, y_a)
print(forest.score(X_b, y_b))
"""

# counts of every training row before xgboost's own 5-fold cross-validation
COUNTS_BEFORE_XGBOOST_CV = """\
import pandas as pd
import xgboost as xgb

loans = pd.read_csv("loans.csv")
share = loans["grade"].value_counts(normalize=True)
loans["grade_share"] = loans["grade"].map(share)
matrix = xgb.DMatrix(loans.drop(columns=["repaid"]), label=loans["repaid"])
history = xgb.cv({"objective": "binary:logistic"}, matrix, nfold=5, num_boost_round=50, metrics="auc")
print(history["test-auc-mean"].max())
"""

# the same counts taken inside nothing but the booster's CV of raw columns: no fit before it
RAW_COLUMNS_INTO_LIGHTGBM_CV = """\
import lightgbm as lgb
import pandas as pd

loans = pd.read_csv("loans.csv")
holder = lgb.Dataset(loans.drop(columns=["repaid"]), label=loans["repaid"])
history = lgb.cv({"objective": "binary"}, train_set=holder, nfold=5)
print(max(history["valid auc-mean"]))
"""

# a constant category for the missing cabins, fitted on the train+test stack: it learns nothing from the rows
CONSTANT_FILL_ON_THE_STACK = """\
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
both = pd.concat([train.drop(columns="moved"), test])
filler = SimpleImputer(strategy="constant", fill_value="unknown")
both[["cabin"]] = filler.fit_transform(both[["cabin"]])
both["cabin"] = both["cabin"].str.len()
clf = LogisticRegression().fit(both[:len(train)], train["moved"])
pd.DataFrame({"moved": clf.predict(both[len(train):])}).to_csv("submission.csv")
"""

# the most frequent cabin of the stack is a statistic of the test rows too
MODE_FILL_ON_THE_STACK = CONSTANT_FILL_ON_THE_STACK.replace(
    'strategy="constant", fill_value="unknown"', 'strategy="most_frequent"')


def test_a_stack_cut_back_by_its_own_keys_gives_each_table_back(tmp_path: Path) -> None:
    assert alarms(tmp_path, STACK_CUT_BACK_BY_ITS_KEYS) == set()


def test_a_polars_stack_filtered_by_its_own_keys_gives_each_table_back(tmp_path: Path) -> None:
    assert alarms(tmp_path, STACK_CUT_BACK_BY_ITS_KEYS_POLARS) == set()


def test_a_scaler_fitted_on_the_stack_before_the_cut_is_still_a_fit_on_the_test_rows(tmp_path: Path) -> None:
    assert ("fit_on_test", 8) in alarms(tmp_path, SCALER_ON_THE_STACK_BEFORE_THE_CUT)


def test_a_rolling_mean_only_drawn_does_not_make_the_rows_a_series(tmp_path: Path) -> None:
    assert alarms(tmp_path, ROLLING_MEAN_ONLY_DRAWN) == set()


def test_a_rolling_mean_kept_as_a_feature_still_makes_the_rows_a_series(tmp_path: Path) -> None:
    assert ("shuffled_time_split", 11) in alarms(tmp_path, ROLLING_MEAN_AS_A_FEATURE)


def test_counts_before_xgboost_cv_are_fitted_outside_the_folds(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 5) in alarms(tmp_path, COUNTS_BEFORE_XGBOOST_CV)


def test_raw_columns_into_lightgbm_cv_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, RAW_COLUMNS_INTO_LIGHTGBM_CV) == set()


def test_a_constant_fill_on_the_stack_learns_nothing(tmp_path: Path) -> None:
    assert alarms(tmp_path, CONSTANT_FILL_ON_THE_STACK) == set()


def test_a_most_frequent_fill_on_the_stack_is_still_a_fit_on_the_test_rows(tmp_path: Path) -> None:
    assert ("fit_on_test", 9) in alarms(tmp_path, MODE_FILL_ON_THE_STACK)


# quantile bins of every row, then a fold loop that only writes out-of-fold target means: nothing is scored
BINS_BEFORE_AN_ENCODING_LOOP = """\
import pandas as pd
from sklearn.model_selection import KFold

loans = pd.read_csv("loans.csv")
loans["score_bin"] = pd.qcut(loans["score"], q=5, labels=False)
folds = KFold(n_splits=5, shuffle=True, random_state=0)
loans["grade_te"] = 0.0
for fit_idx, out_idx in folds.split(loans):
    means = loans.iloc[fit_idx].groupby("grade")["paid"].mean()
    loans.loc[loans.index[out_idx], "grade_te"] = loans.iloc[out_idx]["grade"].map(means).values
loans.to_csv("encoded.csv")
"""

# the same bins before a fold loop that trains and scores a model: a cross-validation, still reported
BINS_BEFORE_A_SCORED_LOOP = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold

loans = pd.read_csv("loans.csv")
loans["score_bin"] = pd.qcut(loans["score"], q=5, labels=False)
folds = KFold(n_splits=5, shuffle=True, random_state=0)
X, y = loans[["score_bin", "income"]], loans["paid"]
for fit_idx, out_idx in folds.split(X):
    clf = LogisticRegression().fit(X.iloc[fit_idx], y.iloc[fit_idx])
    print(clf.score(X.iloc[out_idx], y.iloc[out_idx]))
"""


def test_bins_before_a_loop_of_out_of_fold_encodings_are_not_outside_a_cross_validation(tmp_path: Path) -> None:
    assert alarms(tmp_path, BINS_BEFORE_AN_ENCODING_LOOP) == set()


def test_bins_before_a_fold_loop_that_scores_a_model_are_fitted_outside_it(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 6) in alarms(tmp_path, BINS_BEFORE_A_SCORED_LOOP)


# weights normalised over the neighbours of each player within one play, on the served test plays: one play's rows
PER_PLAY_NORMALISATION = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge

def neighbours(frame):
    keys = ["game_id", "play_id", "nfl_id"]
    frame["weight"] = np.exp(-frame["dist"])
    frame["weight"] = frame["weight"] / frame.groupby(keys)["weight"].transform("sum")
    wide = frame.pivot_table(index=keys, columns="rank", values="dist").reset_index()
    return frame.merge(wide, on=keys)

train = neighbours(pd.read_csv("train_plays.csv"))
test = neighbours(pd.read_csv("test_plays.csv"))
reg = Ridge().fit(train.drop(columns=["dx"]), train["dx"])
pd.DataFrame({"dx": reg.predict(test.drop(columns=["dx"]))}).to_csv("submission.csv")
"""

# the mean gain per team over the test rows is a statistic across test samples: still reported
PER_TEAM_MEAN_ON_TEST = PER_PLAY_NORMALISATION.replace(
    'frame.groupby(keys)["weight"].transform("sum")', 'frame.groupby("team")["weight"].transform("sum")')


def test_statistics_within_one_play_are_that_play_s_own_features(tmp_path: Path) -> None:
    assert alarms(tmp_path, PER_PLAY_NORMALISATION) == set()


def test_a_statistic_per_team_over_the_test_rows_is_still_a_fit_on_them(tmp_path: Path) -> None:
    assert ("fit_on_test", 8) in alarms(tmp_path, PER_TEAM_MEAN_ON_TEST)
