"""The static leakage analysis on the kinds held-out wave 44 of public code showed (feature-engineering library
examples, an imbalanced-learning book, MLOps and time-series examples), in both directions. Every example is
written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "demo.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# a loader fills gaps with the median of every row; the split only shows a capper learnt on one part, applied
# to both: nothing is trained or scored on the held-out rows
MEDIAN_FILL_CAPPER_DEMO = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from feature_engine.outliers import Winsorizer


def load_rides():
    rides = pd.read_csv("rides.csv")
    rides["fare"] = rides["fare"].fillna(rides["fare"].median())
    return rides


rides = load_rides()
X_train, X_test, y_train, y_test = train_test_split(
    rides.drop("tipped", axis=1), rides["tipped"], test_size=0.3, random_state=1)
capper = Winsorizer(capping_method="iqr", tail="right", variables=["fare"])
capper.fit(X_train)
print(capper.right_tail_caps_)
print(capper.transform(X_test).describe())
"""

# the same loader and split, then a classifier scored on the held-out part: the median is a leak
MEDIAN_FILL_THEN_SCORED = MEDIAN_FILL_CAPPER_DEMO + """\
from sklearn.linear_model import LogisticRegression
model = LogisticRegression().fit(capper.transform(X_train)[["fare"]], y_train)
print(model.score(capper.transform(X_test)[["fare"]], y_test))
"""

# the same, with the model trained in a hand-written loop the analysis does not model: the split still counts
MEDIAN_FILL_THEN_TORCH_LOOP = MEDIAN_FILL_CAPPER_DEMO + """\
import torch
net = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(10):
    opt.zero_grad()
    out = net(torch.tensor(X_train[["fare"]].values, dtype=torch.float32))
    loss = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0], torch.tensor(y_train.values * 1.0))
    loss.backward()
    opt.step()
"""


def test_a_median_before_a_split_that_only_demonstrates_a_transformer_is_not_an_alarm(tmp_path: Path) -> None:
    assert _alarms(tmp_path, MEDIAN_FILL_CAPPER_DEMO) == set()


def test_a_median_before_a_split_whose_test_part_is_scored_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in _alarms(tmp_path, MEDIAN_FILL_THEN_SCORED)


def test_a_median_before_a_split_feeding_a_hand_written_training_loop_is_reported(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in _alarms(tmp_path, MEDIAN_FILL_THEN_TORCH_LOOP)


# a pipeline of transformers only (a fixed-edges binner, then a target encoder) is fitted on the training part:
# it trains no model, so the standardisation by hand of every row before the split reaches none (a library
# scaler there would stay an alarm: a transformer before a split whose test part is read, test_leakage_unscored.py)
TRANSFORMER_PIPELINE = """\
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier
from feature_engine.discretisation import ArbitraryDiscretiser
from feature_engine.encoding import MeanEncoder


trips = pd.read_csv("trips.csv")
trips["km"] = (trips["km"] - trips["km"].mean()) / trips["km"].std()
X_train, X_test, y_train, y_test = train_test_split(trips[["km"]], trips["late"], random_state=3)
steps = Pipeline([("bins", ArbitraryDiscretiser(binning_dict={"km": [-9, -1, 0, 1, 9]}, return_object=True)),
                  ("means", MeanEncoder(variables=["km"]))LAST])
steps.fit(X_train, y_train)
print(steps.transform(X_test).head())
"""
TRANSFORMER_PIPELINE_ONLY = TRANSFORMER_PIPELINE.replace("LAST", "")
# the same pipeline ending in a classifier: fitting it trains a model on rows the scaler saw
TRANSFORMER_PIPELINE_WITH_MODEL = TRANSFORMER_PIPELINE.replace("LAST", ', ("tree", DecisionTreeClassifier())')


def test_a_pipeline_of_transformers_only_trains_no_model(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TRANSFORMER_PIPELINE_ONLY) == set()


def test_a_pipeline_ending_in_a_model_trains_one(tmp_path: Path) -> None:
    assert ("fit_before_split", 10) in _alarms(tmp_path, TRANSFORMER_PIPELINE_WITH_MODEL)


# one feature per group of look-alike columns, picked by mutual information with the label on every row, then
# cross-validated: the list of picked names carries the selector's fit
PICKED_NAMES_THEN_CV = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest, mutual_info_classif
from sklearn.model_selection import StratifiedKFold, cross_validate

X = pd.read_csv("sensors.csv")
y = X.pop("fault")
groups = [["t1", "t2"], ["p1", "p2", "p3"]]
keep = []
for group in groups:
    best = SelectKBest(score_func=mutual_info_classif, k=1).fit(X[group], y)
    keep.append(list(best.get_feature_names_out())[0])
chosen = keep + ["rpm"]
print(cross_validate(RandomForestClassifier(), X[chosen], y, cv=StratifiedKFold())["test_score"].mean())
"""

# the same names typed in by hand: nothing was fitted to choose them
TYPED_NAMES_THEN_CV = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import StratifiedKFold, cross_validate

X = pd.read_csv("sensors.csv")
y = X.pop("fault")
keep = []
for name in ["t1", "p2"]:
    keep.append(name)
chosen = keep + ["rpm"]
print(cross_validate(RandomForestClassifier(), X[chosen], y, cv=StratifiedKFold())["test_score"].mean())
"""

# one picked name, in a list display
PICKED_NAME_IN_A_LIST = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import cross_val_score

X = pd.read_csv("sensors.csv")
y = X.pop("fault")
best = SelectKBest(score_func=f_classif, k=1).fit(X[["t1", "t2"]], y)
print(cross_val_score(RandomForestClassifier(), X[[list(best.get_feature_names_out())[0], "rpm"]], y, cv=5))
"""


def test_names_a_selector_picked_on_every_row_then_cross_validated_are_reported(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 11) in _alarms(tmp_path, PICKED_NAMES_THEN_CV)


def test_a_picked_name_in_a_list_display_carries_the_fit(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 8) in _alarms(tmp_path, PICKED_NAME_IN_A_LIST)


def test_names_typed_in_by_hand_then_cross_validated_stay_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TYPED_NAMES_THEN_CV) == set()
