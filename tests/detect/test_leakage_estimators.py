"""The static leakage analysis on estimator classes known from the libraries themselves (the generated table
``faultlib/detect/data/leakage/estimators.py``), in both directions: a learning class fitted before the split is
found at its line; a stateless class, or the same class fitted on the training part, stays silent. Every example
is written for this test."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.detect.data.leakage import vocab
from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "farm.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# one template: a transformer made on line 8, applied to every row on line 9, then the rows are split and scored
TEMPLATE = """\
import pandas as pd
{imports}
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

farms = pd.read_csv("farms.csv")
X, y = farms.drop(columns="yield_class"), farms["yield_class"]
step = {make}
X = step.fit_transform(X{y})
a, b, ya, yb = train_test_split(X, y, random_state=1)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""

# the same transformer fitted on the training part only, then applied to the held-out part
TRAIN_ONLY = """\
import pandas as pd
{imports}
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

farms = pd.read_csv("farms.csv")
X, y = farms.drop(columns="yield_class"), farms["yield_class"]
step = {make}
a, b, ya, yb = train_test_split(X, y, random_state=1)
a = step.fit_transform(a{ya})
b = step.transform(b)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""

LEARNING = [
    # scikit-learn classes the hand list missed (probed: their fit changes what they output)
    ("from sklearn.preprocessing import KernelCenterer", "KernelCenterer()", ""),
    ("from sklearn.feature_selection import RFECV", "RFECV(LogisticRegression())", ", y"),
    ("from sklearn.ensemble import RandomTreesEmbedding", "RandomTreesEmbedding(n_estimators=5)", ""),
    ("from sklearn.neural_network import BernoulliRBM", "BernoulliRBM(n_components=3)", ""),
    # feature-engine (probed): selectors, British-spelled discretisers, cappers
    ("from feature_engine.selection import DropCorrelatedFeatures", "DropCorrelatedFeatures(threshold=0.9)", ""),
    ("from feature_engine.discretisation import EqualFrequencyDiscretiser", "EqualFrequencyDiscretiser(q=4)", ""),
    ("from feature_engine.outliers import Winsorizer", "Winsorizer(tail='both')", ""),
    ("from feature_engine.encoding import MeanEncoder", "MeanEncoder()", ", y"),
    # documented: umap-learn's UMAP, boruta's BorutaPy
    ("import umap", "umap.UMAP(n_components=2)", ""),
    ("from boruta import BorutaPy\nfrom sklearn.ensemble import RandomForestClassifier",
     "BorutaPy(RandomForestClassifier(), n_estimators='auto')", ", y"),
]

STATELESS = [
    # category_encoders' hashing encoder learns nothing (its name ends like a learning encoder's)
    ("from category_encoders import HashingEncoder", "HashingEncoder(n_components=8)", ""),
    # feature-engine: a fixed number, a fixed power (scikit-learn's PowerTransformer of the same name learns)
    ("from feature_engine.imputation import ArbitraryNumberImputer", "ArbitraryNumberImputer(arbitrary_number=-1)", ""),
    ("from feature_engine.transformation import PowerTransformer", "PowerTransformer(exp=0.5)", ""),
    ("from feature_engine.transformation import LogTransformer", "LogTransformer()", ""),
]


@pytest.mark.parametrize(("imports", "make", "y"), LEARNING)
def test_a_learning_class_fitted_on_every_row_before_the_split_is_found(tmp_path: Path, imports: str, make: str,
                                                                        y: str) -> None:
    text = TEMPLATE.format(imports=imports, make=make, y=y)
    line = 9 + imports.count("\n")
    assert ("fit_before_split", line) in _alarms(tmp_path, text)


@pytest.mark.parametrize(("imports", "make", "y"), LEARNING)
def test_the_same_class_fitted_on_the_training_part_stays_silent(tmp_path: Path, imports: str, make: str,
                                                                  y: str) -> None:
    text = TRAIN_ONLY.format(imports=imports, make=make, ya=y.replace("y", "ya"))
    assert _alarms(tmp_path, text) == set()


@pytest.mark.parametrize(("imports", "make", "y"), STATELESS)
def test_a_stateless_class_on_every_row_before_the_split_stays_silent(tmp_path: Path, imports: str, make: str,
                                                                      y: str) -> None:
    assert _alarms(tmp_path, TEMPLATE.format(imports=imports, make=make, y=y)) == set()


def test_scikit_learn_power_transformer_still_learns(tmp_path: Path) -> None:
    text = TEMPLATE.format(imports="from sklearn.preprocessing import PowerTransformer", make="PowerTransformer()", y="")
    assert ("fit_before_split", 9) in _alarms(tmp_path, text)


# an outlier detector's inlier flags drop rows of every row, then the rows are split
OUTLIERS = """\
import pandas as pd
from sklearn.ensemble import IsolationForest, RandomForestClassifier
from sklearn.neighbors import LocalOutlierFactor
from sklearn.model_selection import train_test_split

farms = pd.read_csv("farms.csv")
X, y = farms.drop(columns="yield_class"), farms["yield_class"]
{drop}
a, b, ya, yb = train_test_split(X, y, random_state=1)
print(RandomForestClassifier().fit(a, ya).score(b, yb))
"""


@pytest.mark.parametrize("drop", [
    "keep = IsolationForest(random_state=0).fit_predict(X) == 1\nX, y = X[keep], y[keep]",
    "lof = LocalOutlierFactor(n_neighbors=10)\nX, y = X[lof.fit_predict(X) != -1], y[lof.fit_predict(X) != -1]",
])
def test_rows_dropped_by_an_outlier_detector_fitted_on_every_row_are_a_fit_before_the_split(
        tmp_path: Path, drop: str) -> None:
    alarms = _alarms(tmp_path, OUTLIERS.format(drop=drop))
    assert any(kind == "fit_before_split" and line in (8, 9) for kind, line in alarms), alarms


def test_an_outlier_detector_on_the_training_part_only_stays_silent(tmp_path: Path) -> None:
    text = OUTLIERS.replace("{drop}\na, b, ya, yb = train_test_split(X, y, random_state=1)", """\
a, b, ya, yb = train_test_split(X, y, random_state=1)
keep = IsolationForest(random_state=0).fit_predict(a) == 1
a, ya = a[keep], ya[keep]""")
    assert _alarms(tmp_path, text) == set()


def test_an_outlier_detector_scored_as_a_model_stays_silent(tmp_path: Path) -> None:
    text = OUTLIERS.replace("{drop}\na, b, ya, yb = train_test_split(X, y, random_state=1)\n"
                            "print(RandomForestClassifier().fit(a, ya).score(b, yb))", """\
a, b, ya, yb = train_test_split(X, y, random_state=1)
iso = IsolationForest(random_state=0).fit(a)
print((iso.predict(b) == -1).mean())""")
    assert _alarms(tmp_path, text) == set()


# a Keras preprocessing layer adapted to the held-out rows
ADAPTED = """\
import numpy as np
import tensorflow as tf
from sklearn.model_selection import train_test_split

table = np.load("farms.npy")
a, b, ya, yb = train_test_split(table[:, :-1], table[:, -1], random_state=1)
norm = tf.keras.layers.Normalization()
norm.adapt({rows})
model = tf.keras.Sequential([norm, tf.keras.layers.Dense(1)])
model.fit(a, ya)
print(model.evaluate(b, yb))
"""


def test_a_keras_layer_adapted_to_the_test_rows_is_a_fit_on_test(tmp_path: Path) -> None:
    assert ("fit_on_test", 8) in _alarms(tmp_path, ADAPTED.format(rows="b"))
    assert _alarms(tmp_path, ADAPTED.format(rows="a")) == set()


def test_a_users_own_normalization_class_is_not_keras(tmp_path: Path) -> None:
    text = ADAPTED.format(rows="b").replace("import tensorflow as tf\n", "import tensorflow as tf\nfrom mylayers import Normalization\n").replace(
        "tf.keras.layers.Normalization()", "Normalization()")
    assert _alarms(tmp_path, text) == set()


# an estimator-library class newer than the table: known by what the script does with it
NEWER = """\
import pandas as pd
from feature_engine.creation import {cls}
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

farms = pd.read_csv("farms.csv")
X, y = farms.drop(columns="yield_class"), farms["yield_class"]
maker = {cls}()
X = maker.fit_transform(X)
a, b, ya, yb = train_test_split(X, y, random_state=1)
print(LogisticRegression().fit(a, ya).score(b, yb))
"""


def test_an_unknown_library_class_used_as_a_transformer_is_a_fit(tmp_path: Path) -> None:
    assert vocab.role("HarvestRatios", "feature_engine.creation") is None  # not in the table
    assert ("fit_before_split", 9) in _alarms(tmp_path, NEWER.format(cls="HarvestRatios"))


def test_the_table_keeps_each_library_entry() -> None:
    assert vocab.role("PowerTransformer", "sklearn.preprocessing") == "learns"
    assert vocab.role("PowerTransformer", "feature_engine.transformation") == "stateless"
    assert vocab.role("OrdinalEncoder", "category_encoders") == "learns"
    assert vocab.role("HashingEncoder", "category_encoders") == "stateless"
    assert vocab.role("SMOTE", "imblearn.over_sampling") == "resampler"
    assert vocab.role("IsolationForest", "sklearn.ensemble") == "outlier"
    assert vocab.role("Normalization", "mylayers") is None and vocab.role("Normalization", "keras.layers") == "learns"
    assert not vocab.is_search("RFECV") and vocab.is_search("GridSearchCV") and vocab.is_search("LassoCV")


# RFECV is a supervised selector by the table, and its fit cross-validates: rows scaled on all of them are scored
RFECV_AFTER_SCALING = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.feature_selection import RFECV
from sklearn.linear_model import LogisticRegression

farms = pd.read_csv("farms.csv")
X, y = farms.drop(columns="yield_class"), farms["yield_class"]
scaled = StandardScaler().fit_transform(X)
picker = RFECV(LogisticRegression(), cv=5)
picker.fit(scaled, y)
print(picker.n_features_)
"""


@pytest.mark.parametrize("selector", ["RFECV(LogisticRegression(), cv=5)",
                                      "SequentialFeatureSelector(LogisticRegression(), cv=5)"])
def test_a_cross_validating_selector_on_rows_scaled_on_all_of_them_is_a_fit_outside_cv(tmp_path: Path,
                                                                                      selector: str) -> None:
    text = RFECV_AFTER_SCALING.replace("RFECV(LogisticRegression(), cv=5)", selector).replace(
        "import RFECV", "import RFECV, SequentialFeatureSelector").replace("picker.n_features_", "picker.support_")
    assert ("fit_outside_cv", 8) in _alarms(tmp_path, text)
    unscaled = text.replace("StandardScaler().fit_transform(X)", "X")
    assert _alarms(tmp_path, unscaled) == set()
