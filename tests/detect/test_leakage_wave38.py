"""The static leakage analysis on the kinds held-out wave 38 of public code showed (text-analytics books, course
homeworks, remote-sensing and medical projects), in both directions. Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "tiles.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


# one feature row per tile, built in a loop: every reduction reads the tile of this pass only
TILE_FEATURES = """\
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.ensemble import RandomForestClassifier

tiles = np.load("tiles.npy")
labels = np.load("labels.npy")
rows = []
for k in range(min(800, len(tiles))):
    tile = tiles[k]
    green = tile[:, :, 1]
    bright = (tile - tile.min()) / (np.ptp(tile) + 1e-6)
    wet = np.mean((tile[:, :, 3] - green) / (tile[:, :, 3] + green + 1e-6))
    rows.append(np.hstack([bright[::8, ::8, 0].ravel(), np.median(green), wet, tile[:, :, 0].max()]))
rows = np.array(rows)
print(cross_val_score(RandomForestClassifier(), rows, labels[:len(rows)], cv=5).mean())
"""

# the same loop, but each tile is centred with the mean of every tile: a statistic over the rows
TILE_CENTRED_ON_ALL = """\
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.ensemble import RandomForestClassifier

tiles = np.load("tiles.npy")
labels = np.load("labels.npy")
rows = []
for k in range(len(tiles)):
    tile = (tiles[k] - tiles.mean(axis=0)) / tiles.std(axis=0)
    rows.append(np.concatenate([tile.ravel(), [tile.max()]]))
rows = np.array(rows)
print(cross_val_score(RandomForestClassifier(), rows, labels, cv=5).mean())
"""

# a column loop: range over the columns' count makes table[:, c] a whole column
COLUMN_LOOP = """\
import numpy as np
from sklearn.model_selection import cross_val_score
from sklearn.linear_model import LogisticRegression

table = np.load("table.npy")
target = np.load("target.npy")
scaled = []
for c in range(table.shape[1]):
    col = table[:, c]
    scaled.append((col - col.mean()) / col.std())
X = np.column_stack(scaled)
print(cross_val_score(LogisticRegression(), X, target, cv=5).mean())
"""


def test_reductions_of_one_tile_in_a_row_building_loop_are_features(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TILE_FEATURES) == set()


def test_a_statistic_over_every_tile_inside_the_loop_is_still_a_fit(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 9) in _alarms(tmp_path, TILE_CENTRED_ON_ALL)


def test_a_loop_over_column_positions_reduces_whole_columns(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 10) in _alarms(tmp_path, COLUMN_LOOP)


# a search whose predefined validation fold is the test part of the split, fitted on both parts stacked
FOLD_IS_TEST = """\
import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit, train_test_split
from sklearn.svm import SVR

grid = np.load("ponds.npy")
a, b, ya, yb = train_test_split(grid[:, :-1], grid[:, -1], random_state=3)
folds = np.concatenate([np.full(len(a), -1), np.zeros(b.shape[0])])
search = GridSearchCV(SVR(), {"C": [0.1, 1, 10]}, cv=PredefinedSplit(test_fold=folds))
search.fit(np.vstack((a, b)), np.concatenate((ya, yb)))
print("best held-out score", search.best_score_)
"""

# its documented use: the predefined fold is a validation part carved from the training rows
FOLD_IS_VALIDATION = """\
import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit, train_test_split
from sklearn.svm import SVR

grid = np.load("ponds.npy")
a, b, ya, yb = train_test_split(grid[:, :-1], grid[:, -1], random_state=3)
fit_part, val_part, y_fit, y_val = train_test_split(a, ya, random_state=4)
folds = [-1] * len(fit_part) + [0] * len(val_part)
search = GridSearchCV(SVR(), {"C": [0.1, 1, 10]}, cv=PredefinedSplit(folds))
search.fit(np.vstack((fit_part, val_part)), np.concatenate((y_fit, y_val)))
print("test score", search.best_estimator_.fit(a, ya).score(b, yb))
"""


def test_a_predefined_fold_made_of_the_test_part_tunes_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", 9) in _alarms(tmp_path, FOLD_IS_TEST)


def test_a_predefined_validation_fold_carved_from_training_rows_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, FOLD_IS_VALIDATION) == set()


# a hand-written learner from the course's own module (unseen): a penalty swept, each scored on the test part,
# the best kept by argmax of the collected accuracies
SWEEP_OF_OWN_LEARNER = """\
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.metrics import accuracy_score
from coursework.learners import *

reviews = np.load("reviews.npy")
tr, te, ytr, yte = train_test_split(reviews[:, 1:], reviews[:, 0], random_state=0)
penalties = np.logspace(-4, 1, 12)
accs = []
for pen in penalties:
    svm = HingeDescent(pen)
    svm.fit(tr, ytr, epochs=20)
    accs.append(accuracy_score({scored}, svm.predict({rows})))
pick = int(np.argmax(accs))
final = HingeDescent(penalties[pick])
final.fit(tr, ytr, epochs=20)
print(accuracy_score(yte, final.predict(te)))
"""


def test_a_sweep_of_an_unseen_learner_scored_on_the_test_part_tunes_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", 13) in _alarms(tmp_path, SWEEP_OF_OWN_LEARNER.format(scored="yte", rows="te"))


def test_the_same_sweep_scored_on_a_validation_part_is_silent(tmp_path: Path) -> None:
    text = SWEEP_OF_OWN_LEARNER.replace(
        "penalties = ", "fit_x, val_x, fit_y, val_y = train_test_split(tr, ytr, random_state=1)\npenalties = ")
    text = text.replace("svm.fit(tr, ytr", "svm.fit(fit_x, fit_y")
    assert _alarms(tmp_path, text.format(scored="val_y", rows="val_x")) == set()


# a sweep through the file's own helper functions, each scored on the held-out fold of a k-fold split of the
# TRAINING part that another helper hands back in a list: a cross-validated sweep, not a sweep on the test part.
# The helpers share the variable name ``clf`` with the sweep; a function the file defines is no unseen class.
HELPER_SWEEP_ON_FOLDS = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import KFold
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.metrics import accuracy_score


def forest(X, y, depth):
    clf = ExtraTreesClassifier(max_depth=depth)
    clf.fit(X, y)
    return clf


def neighbours(X, y, k):
    clf = KNeighborsClassifier(n_neighbors=k)
    clf.fit(X, y)
    return clf


def folds(X, y):
    out = []
    for a, b in KFold(n_splits=4).split(X):
        out.append([X.iloc[a], X.iloc[b], y.iloc[a], y.iloc[b]])
    return out


def main():
    Xtr = pd.read_csv("x_train.csv")
    ytr = pd.read_csv("y_train.csv").iloc[:, 0]
    means = []
    for depth in [3, 6, 12]:
        total = 0.0
        for j in range(4):
            fxTrain, fxTest, fyTrain, fyTest = folds(Xtr, ytr)[j]
            clf = forest(fxTrain, fyTrain, depth)
            total += accuracy_score(fyTest, clf.predict(fxTest))
        means.append(total / 4)
    print("best depth", [3, 6, 12][means.index(max(means))])


main()
"""


def test_a_sweep_through_own_helpers_scored_on_training_folds_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, HELPER_SWEEP_ON_FOLDS, name="sweep.py") == set()


def test_duck_models_skip_functions_the_file_defines_and_keep_variables_per_function() -> None:
    import ast

    from faultlib.detect.data.leakage.ducks import duck_models

    assert duck_models(ast.parse(HELPER_SWEEP_ON_FOLDS)) == frozenset()
    unseen = HELPER_SWEEP_ON_FOLDS.replace("clf = forest(fxTrain, fyTrain, depth)", "clf = Boosted(depth)\n"
                                           "            clf.fit(fxTrain, fyTrain)")
    assert duck_models(ast.parse(unseen)) == frozenset({"Boosted"})


# a class left as a template (its cell does not parse) used as a model: fitted on every row, scored on the test part
TEMPLATE_MODEL = """\
import numpy as np
from sklearn.model_selection import train_test_split

blooms = np.load("blooms.npy")
X, y = blooms[:, :-1], blooms[:, -1]
Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=5)
class KernelBayes:
    def fit(self, X, y):
        # TODO: your code here
        self.priors =
        return self
kb = KernelBayes()
kb.fit({fit_rows})
print("test accuracy", kb.score(Xb, yb))
"""

# an unseen class used as a transformer (fitted with labels, then asked to transform): not a model, so its fit on
# every row is not "trained on the test part" (what such a fit is, the analysis cannot tell without the class)
TEMPLATE_TRANSFORMER = """\
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from coursework.features import SupervisedBins

blooms = np.load("blooms.npy")
X, y = blooms[:, :-1], blooms[:, -1]
Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=5)
bins = SupervisedBins()
bins.fit(X, y)
model = LogisticRegression().fit(bins.transform(Xa), ya)
print(model.score(bins.transform(Xb), yb), bins.score(Xb, yb))
"""


def test_an_unseen_class_fitted_on_all_rows_then_scored_on_the_test_part_is_trained_on_test(tmp_path: Path) -> None:
    text = TEMPLATE_MODEL.format(fit_rows="X, y")
    assert ("trained_on_test", 13) in _alarms(tmp_path, text, name="bayes.py")


def test_the_unseen_class_fitted_on_the_training_part_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TEMPLATE_MODEL.format(fit_rows="Xa, ya"), name="bayes.py") == set()


def test_an_unseen_class_that_transforms_is_not_taken_for_a_model(tmp_path: Path) -> None:
    assert not {kind for kind, _ in _alarms(tmp_path, TEMPLATE_TRANSFORMER)} & {"trained_on_test", "tuned_on_test"}


# the split's parts travel in a record a sibling module fills; the objective scores the record's test part
SPLIT_RECORD = """\
from dataclasses import dataclass

import pandas as pd
from sklearn.model_selection import train_test_split


@dataclass(frozen=True)
class Halves:
    X_fit: pd.DataFrame
    X_hold: pd.DataFrame
    y_fit: pd.Series
    y_hold: pd.Series


def halves(frame: pd.DataFrame) -> Halves:
    feats, label = frame.drop(columns=["outcome"]), frame["outcome"]
    a, b, c, d = train_test_split(feats, label, test_size=0.25, stratify=label)
    return Halves(a, X_hold=b, y_fit=c, y_hold=d)
"""

OBJECTIVE_ON_RECORD = """\
import optuna
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score

from wards import halves


def search(path: str) -> dict:
    parts = halves(pd.read_csv(path))

    def objective(trial: optuna.Trial) -> float:
        gb = GradientBoostingClassifier(learning_rate=trial.suggest_float("lr", 0.01, 0.3))
        gb.fit(parts.X_fit, parts.y_fit)
        return roc_auc_score(parts.y_hold, gb.predict_proba({rows})[:, 1])

    study = optuna.create_study(direction="maximize")
    study.optimize(objective, n_trials=25)
    return study.best_params
"""


def test_an_objective_scoring_the_test_part_held_in_a_record_tunes_on_test(tmp_path: Path) -> None:
    (tmp_path / "wards.py").write_text(SPLIT_RECORD)
    script = tmp_path / "tune.py"
    script.write_text(OBJECTIVE_ON_RECORD.format(rows="parts.X_hold"))
    report, _ = analyze_file(str(script))
    assert ("tuned_on_test", 15) in {(f.kind, f.location.get("line")) for f in report.findings
                                     if f.severity >= Severity.WARNING}


# the same record with a validation part carved from the training part: the objective scores that (silent)
VALIDATION_RECORD = """\
from typing import NamedTuple

import numpy as np
import optuna
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split


class Carved(NamedTuple):
    X_fit: np.ndarray
    X_val: np.ndarray
    y_fit: np.ndarray
    y_val: np.ndarray


table = np.load("wards.npy")
X_tr, X_te, y_tr, y_te = train_test_split(table[:, 1:], table[:, 0], test_size=0.25)
a, b, c, d = train_test_split(X_tr, y_tr, test_size=0.2)
parts = Carved(a, b, c, d)


def objective(trial):
    gb = GradientBoostingClassifier(learning_rate=trial.suggest_float("lr", 0.01, 0.3))
    gb.fit(parts.X_fit, parts.y_fit)
    return roc_auc_score(parts.y_val, gb.predict_proba(parts.X_val)[:, 1])


study = optuna.create_study(direction="maximize")
study.optimize(objective, n_trials=25)
best = GradientBoostingClassifier(**study.best_params).fit(X_tr, y_tr)
print(roc_auc_score(y_te, best.predict_proba(X_te)[:, 1]))
"""


def test_an_objective_scoring_a_validation_part_held_in_a_record_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, VALIDATION_RECORD) == set()


# a list of column names, a few of them printed through a slice, then the encoder fitted on those columns of every
# training row before the cross-validation
NAMES_SLICED = """\
import pandas as pd
from sklearn.preprocessing import OrdinalEncoder
from sklearn.model_selection import cross_val_score
from sklearn.ensemble import HistGradientBoostingClassifier

loans = pd.read_csv("loans.csv")
y = loans.pop("defaulted")
text_cols = loans.select_dtypes(include=["object"]).columns.tolist()
print(f"{len(text_cols)} text columns, e.g. {text_cols[:4]}")
loans[text_cols] = OrdinalEncoder().fit_transform(loans[text_cols])
print(cross_val_score(HistGradientBoostingClassifier(), loans, y, cv=5).mean())
"""

# the same columns encoded inside the cross-validated pipeline: each fold refits the encoder
NAMES_SLICED_IN_PIPELINE = """\
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from sklearn.model_selection import cross_val_score
from sklearn.ensemble import HistGradientBoostingClassifier

loans = pd.read_csv("loans.csv")
y = loans.pop("defaulted")
text_cols = loans.select_dtypes(include=["object"]).columns.tolist()
print(f"{len(text_cols)} text columns, e.g. {text_cols[:4]}")
prep = make_column_transformer((OrdinalEncoder(), text_cols), remainder="passthrough")
print(cross_val_score(make_pipeline(prep, HistGradientBoostingClassifier()), loans[text_cols], y, cv=5).mean())
"""


def test_a_sliced_list_of_column_names_still_selects_columns(tmp_path: Path) -> None:
    assert ("fit_outside_cv", 10) in _alarms(tmp_path, NAMES_SLICED)


def test_the_same_columns_encoded_inside_the_pipeline_are_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, NAMES_SLICED_IN_PIPELINE) == set()
