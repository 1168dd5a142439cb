"""Files that train and score nothing (unscored.py): which fits before a ``train_test_split`` still count.

A "data preprocessing" lesson fits library transformers on every row, splits, then scales the two parts apart
for a model that lives in the next lesson: a leak. A loader's hand-written fill, or a split whose test part is
never read again (points thinned for a plot), stays a note. Every example is written for this test.
"""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# imputer and encoder on every row, then the split, then a scaler learnt on one part and applied to both
PREPROCESSING_LESSON = """\
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import OneHotEncoder, StandardScaler

shops = pd.read_csv("shops.csv")
X = shops.iloc[:, :-1].values
y = shops.iloc[:, -1].values
filler = SimpleImputer(missing_values=np.nan, strategy="mean")
filler.fit(X[:, 1:3])
X[:, 1:3] = filler.transform(X[:, 1:3])
onehot = ColumnTransformer([("city", OneHotEncoder(), [0])], remainder="passthrough")
X = onehot.fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=3)
scaler = StandardScaler()
X_train = scaler.fit_transform(X_train)
X_test = scaler.transform(X_test)
print(X_train[:5], X_test[:5])
"""

# the same fits, but the split only thins the points of a scatter plot: its second part is never read
THINNED_FOR_A_PLOT = """\
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

cells = pd.read_csv("cells.csv")
kinds = cells.pop("kind")
coords = PCA(n_components=2).fit_transform(StandardScaler().fit_transform(cells))
shown, dropped, shown_kind, dropped_kind = train_test_split(coords, kinds, train_size=0.2, random_state=0)
plt.scatter(shown[:, 0], shown[:, 1], c=shown_kind.astype("category").cat.codes)
plt.show()
"""

# a loader fills a gap by hand, then the split's parts are both transformed: no model anywhere
HAND_FILL_LESSON = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

trips = pd.read_csv("trips.csv")
trips["fare"] = trips["fare"].fillna(trips["fare"].mean())
X_train, X_test, y_train, y_test = train_test_split(trips[["fare"]], trips["late"], random_state=0)
scaler = MinMaxScaler().fit(X_train)
print(scaler.transform(X_test).max())
"""


def test_transformers_fitted_before_a_split_whose_test_part_is_used_are_alarms(tmp_path: Path) -> None:
    found = alarms(tmp_path, PREPROCESSING_LESSON)
    assert ("fit_before_split", 12) in found  # the imputer's fit
    assert ("fit_before_split", 15) in found  # the one-hot encoder's fit_transform
    assert not any(line >= 17 for _, line in found)  # the scaler is learnt on the training part only


def test_the_same_lesson_as_a_notebook_is_reported_in_its_cells(tmp_path: Path) -> None:
    import json

    head, tail = PREPROCESSING_LESSON.split("X_train, X_test")
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": src}
             for src in (head, "X_train, X_test" + tail)]
    doc = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    found = alarms(tmp_path, json.dumps(doc), name="lesson.ipynb")
    assert {kind for kind, _ in found} == {"fit_before_split"} and len(found) == 2


def test_a_split_that_only_thins_plotted_points_leaves_the_fits_notes(tmp_path: Path) -> None:
    assert alarms(tmp_path, THINNED_FOR_A_PLOT) == set()


def test_a_hand_written_fill_before_a_split_in_a_file_without_a_model_stays_a_note(tmp_path: Path) -> None:
    assert alarms(tmp_path, HAND_FILL_LESSON) == set()
