"""The static leakage analysis on the kinds held-out wave 40 of public code showed (Kaggle solutions, course
assignments, a medical course project), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "clinic.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# features kept by their correlation with the target over every row, then a split scored on its test part
CORRWITH_BEFORE_SPLIT = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

visits = pd.read_csv("visits.csv")
strength = visits.corrwith(visits["relapsed"]).abs().sort_values(ascending=False)
strong = strength[strength > 0.3].index
visits = visits[strong]
X = visits.drop(columns=["relapsed"])
y = visits["relapsed"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
tree = DecisionTreeClassifier().fit(X_tr, y_tr)
print(tree.score(X_te, y_te))
"""

# the same ranking read off the correlation matrix, before a cross-validation of the kept columns
CORR_COLUMN_BEFORE_CV = """\
import pandas as pd
from sklearn.model_selection import cross_val_score
from sklearn.linear_model import LogisticRegression

visits = pd.read_csv("visits.csv")
ranking = visits.corr()["relapsed"].drop("relapsed")
picked = ranking[ranking.abs() > 0.2].index
target = visits["relapsed"]
print(cross_val_score(LogisticRegression(), visits[picked], target, cv=5).mean())
"""

# look-alikes: the ranking on the training part only; a heat map of the features; a ranking printed and never used;
# a correlation of the features with another feature table
CORRELATIONS_SILENT = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

visits = pd.read_csv("visits.csv")
lab = pd.read_csv("lab.csv")
print(visits.corr())
print(visits.corrwith(visits["relapsed"]).sort_values())
print(visits.corrwith(lab))
X = visits.drop(columns=["relapsed"])
y = visits["relapsed"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)
strength = X_tr.corrwith(y_tr).abs()
strong = strength[strength > 0.3].index
tree = DecisionTreeClassifier().fit(X_tr[strong], y_tr)
print(tree.score(X_te[strong], y_te))
"""


def test_a_ranking_by_correlation_with_the_target_before_the_split_is_a_fit(tmp_path: Path) -> None:
    assert ("fit_before_split", 6) in _alarms(tmp_path, CORRWITH_BEFORE_SPLIT)
    assert ("fit_outside_cv", 6) in _alarms(tmp_path, CORR_COLUMN_BEFORE_CV)


def test_correlations_that_choose_no_model_column_or_see_only_training_rows_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, CORRELATIONS_SILENT) == set()


# train.csv split into train/test beside the competition's test.csv; a selector refitted on the part named test,
# with its labels, then that part's score is printed as the test accuracy
REFIT_ON_NAMED_TEST_PART = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.svm import SVC

phones = pd.read_csv("train.csv")
board = pd.read_csv("test.csv")
X = phones.drop("tier", axis=1)
y = phones["tier"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
pick = SelectKBest(f_classif, k=4)
few_train = pick.fit_transform(X_train, y_train)
few_test = pick.fit_transform(X_test, y_test)
svm = SVC().fit(few_train, y_train)
print("test accuracy", svm.score(few_test, y_test))
"""

# the same layout, the selector fitted on the training part and only applied to the test part
APPLIED_TO_NAMED_TEST_PART = REFIT_ON_NAMED_TEST_PART.replace(
    "few_test = pick.fit_transform(X_test, y_test)", "few_test = pick.transform(X_test)")


def test_a_refit_on_the_test_named_part_of_a_training_file_is_fit_on_test(tmp_path: Path) -> None:
    assert ("fit_on_test", 13) in _alarms(tmp_path, REFIT_ON_NAMED_TEST_PART)
    assert _alarms(tmp_path, APPLIED_TO_NAMED_TEST_PART) == set()


# leave-one-season-out by hand: a mask named for testing and its negation are the two parts of a split; the scaler
# fitted on the training seasons, then 10% of them set aside to watch the training, and the held-out season scored
SEASON_MASKS_SCALED_ON_TRAINING_SIDE = """\
import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.neural_network import MLPClassifier

games = pd.read_csv("games.csv")
X = games.drop(columns=["won", "season"])
y = games["won"]
for season in [2021, 2022, 2023]:
    test_mask = (games["season"] == season).values
    train_mask = ~test_mask
    scaler = StandardScaler()
    X_seen = scaler.fit_transform(X[train_mask].values)
    y_seen = y[train_mask].values
    X_held = scaler.transform(X[test_mask].values)
    order = np.random.RandomState(0).permutation(len(X_seen))
    val_idx, fit_idx = order[:100], order[100:]
    X_fit, y_fit = X_seen[fit_idx], y_seen[fit_idx]
    X_val, y_val = X_seen[val_idx], y_seen[val_idx]
    net = MLPClassifier().fit(X_fit, y_fit)
    print("watch", net.score(X_val, y_val))
    print("season", season, net.score(X_held, y[test_mask].values))
"""

# the same masks after a scaler fitted on every season, and one refitted on the held-out season
SEASON_MASKS_AFTER_A_FIT_ON_ALL = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression

games = pd.read_csv("games.csv")
X = StandardScaler().fit_transform(games.drop(columns=["won", "season"]))
y = games["won"].values
for season in [2021, 2022, 2023]:
    is_test = games["season"].values == season
    model = LogisticRegression().fit(X[games["season"].values != season], y[~is_test])
    print(season, model.score(X[is_test], y[is_test]))
"""


def test_a_test_named_mask_and_its_negation_split_the_rows(tmp_path: Path) -> None:
    assert _alarms(tmp_path, SEASON_MASKS_SCALED_ON_TRAINING_SIDE) == set()
    assert ("fit_before_split", 6) in _alarms(tmp_path, SEASON_MASKS_AFTER_A_FIT_ON_ALL)


# the columns only put in the order of their correlation with the target (every one kept), then split and scored;
# the same ranking cut to the five strongest is a choice
ORDERED_BY_CORRELATION = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

visits = pd.read_csv("visits.csv")
strength = visits.drop("relapsed", axis=1).corrwith(visits["relapsed"])
labels = visits["relapsed"]
feats = visits.drop("relapsed", axis=1)
feats = feats.iloc[:, strength.argsort()[::-1]]
X_tr, X_te, y_tr, y_te = train_test_split(feats.values, labels.values)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
CUT_TO_THE_STRONGEST = ORDERED_BY_CORRELATION.replace("strength.argsort()[::-1]", "strength.argsort()[::-1][:5]")


def test_columns_reordered_by_a_ranking_choose_nothing_but_the_top_k_does(tmp_path: Path) -> None:
    assert _alarms(tmp_path, ORDERED_BY_CORRELATION) == set()
    assert ("fit_before_split", 6) in _alarms(tmp_path, CUT_TO_THE_STRONGEST)
