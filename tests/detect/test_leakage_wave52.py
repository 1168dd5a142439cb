"""The static leakage analysis on the kinds held-out wave 52 of public code showed (Kaggle solutions: one feature
table over the training and the competition test rows parted again by the label column, folds handed over from a
loader, group counts picked by attribute), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# one table holds labelled rows and rows whose label is a placeholder (-1); a group mean and a word vocabulary are
# learnt over the whole table, then it is parted by the label column and the labelled part cross-validated
LABEL_PARTED_TABLE = """\
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score

both = pd.read_csv("listings_features.csv")
rent = both.groupby("agent")["rent"].mean().rename("agent_rent").reset_index()
both = both.merge(rent, on="agent", how="left")
words = CountVectorizer(max_features=50).fit_transform(both["notes"])
labelled = both[both["grade"] != -1].copy()
test_part = both[both["grade"] == -1].copy()
y_lab = labelled["grade"]
n_lab = labelled.shape[0]
x_lab = sparse.hstack([labelled[["agent_rent"]].values, words[:n_lab]]).tocsr()
x_new = sparse.hstack([test_part[["agent_rent"]].values, words[n_lab:]]).tocsr()
print(cross_val_score(LogisticRegression(), x_lab, y_lab, cv=4))
guess = LogisticRegression().fit(x_lab, y_lab).predict(x_new)
"""

# the same table, but the second part keeps its labels and is scored with them: a labelled holdout chosen by grade
LABEL_PARTED_HOLDOUT_SCORED = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

both = pd.read_csv("listings_features.csv")
rent = both.groupby("agent")["rent"].mean().rename("agent_rent").reset_index()
both = both.merge(rent, on="agent", how="left")
labelled = both[both["grade"] != 2].copy()
test_part = both[both["grade"] == 2].copy()
y_lab = labelled["grade"]
model = LogisticRegression().fit(labelled[["agent_rent"]], y_lab)
print(accuracy_score(test_part["grade"], model.predict(test_part[["agent_rent"]])))
"""

# folds made elsewhere and handed over by the loader; the training rows filled with their own means first
HANDED_OVER_FOLDS_AFTER_MEANS = """\
import numpy as np
from lightgbm import LGBMClassifier
from sklearn.metrics import roc_auc_score

from prep import load_rows

x_all, y_all, cv = load_rows()
x_all = x_all[["spend", "visits"]]
means = x_all.mean()
x_all = x_all.fillna(means).values
for fit_rows, held_rows in cv:
    clf = LGBMClassifier().fit(x_all[fit_rows], y_all[fit_rows])
    print(roc_auc_score(y_all[held_rows], clf.predict_proba(x_all[held_rows])[:, 1]))
"""

# the same loop, the means taken on each fold's training rows
HANDED_OVER_FOLDS_MEANS_PER_FOLD = """\
import numpy as np
from lightgbm import LGBMClassifier
from sklearn.metrics import roc_auc_score

from prep import load_rows

x_all, y_all, cv = load_rows()
x_all = x_all[["spend", "visits"]]
for fit_rows, held_rows in cv:
    part = x_all.iloc[fit_rows]
    means = part.mean()
    clf = LGBMClassifier().fit(part.fillna(means), y_all[fit_rows])
    held = x_all.iloc[held_rows].fillna(means)
    print(roc_auc_score(y_all[held_rows], clf.predict_proba(held)[:, 1]))
"""

# distinct values per group picked by attribute (groupby(k).col.nunique()) before a CV, and per entity id (silent)
GROUP_DISTINCT_BY_ATTRIBUTE = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score

shops = pd.read_csv("visits.csv")
kinds = shops.groupby("district").brand.nunique().rename("district_brands").reset_index()
shops = shops.merge(kinds, on="district", how="left")
print(cross_val_score(LogisticRegression(), shops[["district_brands"]], shops["bought"], cv=KFold(4)))
"""

GROUP_DISTINCT_PER_ID = GROUP_DISTINCT_BY_ATTRIBUTE.replace('groupby("district").brand', 'groupby("visitor_id").brand')\
    .replace('on="district"', 'on="visitor_id"')


def test_a_table_parted_by_its_label_column_stacks_the_test_rows(tmp_path: Path) -> None:
    found = alarms(tmp_path, LABEL_PARTED_TABLE)
    assert ("fit_on_test", 8) in found and ("fit_on_test", 10) in found
    assert not any(kind == "fit_before_split" for kind, _ in found)


def test_a_label_parted_holdout_scored_by_its_labels_is_no_test_stack(tmp_path: Path) -> None:
    assert not any(kind == "fit_on_test" for kind, _ in alarms(tmp_path, LABEL_PARTED_HOLDOUT_SCORED))


def test_folds_handed_over_by_a_loader_make_the_means_a_fit_outside_cv(tmp_path: Path) -> None:
    found = alarms(tmp_path, HANDED_OVER_FOLDS_AFTER_MEANS)
    assert ("fit_outside_cv", 9) in found
    assert not any(kind == "fit_before_split" for kind, _ in found)


def test_means_taken_inside_handed_over_folds_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, HANDED_OVER_FOLDS_MEANS_PER_FOLD) == set()


def test_distinct_values_per_group_picked_by_attribute_count_before_the_cv(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 6) in alarms(tmp_path, GROUP_DISTINCT_BY_ATTRIBUTE)


def test_distinct_values_per_entity_id_picked_by_attribute_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, GROUP_DISTINCT_PER_ID) == set()
