"""Kinds of issue 17's held-out wave 101 (astronomy, earth observation and geoscience projects), both directions.
Every example is a small script written for this test (no public code)."""

from __future__ import annotations

import pytest

from tests.detect.leakage_source import alarms, line_of

# --- M1: columns kept by their share of missing values over every row, before the split ------------------------

SPARSE_COLUMNS = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

quakes = pd.read_csv("traces.csv")
quakes = quakes.dropna(thresh=int(0.6 * len(quakes)), axis=1)
X = quakes.drop(columns=["mag"])
X_train, X_test, y_train, y_test = train_test_split(X, quakes["mag"], test_size=0.25)
model = RandomForestRegressor().fit(X_train, y_train)
print(model.score(X_test, y_test))
"""


def test_columns_kept_by_their_missing_count_over_every_row_before_the_split(tmp_path):
    assert ("fit_before_split", line_of(SPARSE_COLUMNS, "thresh=")) in alarms(tmp_path, SPARSE_COLUMNS)


def test_columns_kept_by_their_missing_count_on_the_training_part_is_silent(tmp_path):
    text = SPARSE_COLUMNS.replace('quakes = quakes.dropna(thresh=int(0.6 * len(quakes)), axis=1)\n', "").replace(
        "model = RandomForestRegressor()",
        "X_train = X_train.dropna(thresh=int(0.6 * len(X_train)), axis='columns')\n"
        "X_test = X_test[X_train.columns]\nmodel = RandomForestRegressor()")
    assert not {k for k, _ in alarms(tmp_path, text)} & {"fit_before_split", "fit_on_test"}


@pytest.mark.parametrize(("old", "new"), [
    ("axis=1)", "axis=0)"),  # rows dropped by their own missing count
    ("thresh=int(0.6 * len(quakes)), axis=1", "how='all', axis=1"),  # columns empty on every row
])
def test_drops_that_count_nothing_over_the_rows_are_silent(tmp_path, old, new):
    assert not alarms(tmp_path, SPARSE_COLUMNS.replace(old, new))


def test_columns_kept_by_their_missing_count_in_place_before_the_split(tmp_path):
    text = SPARSE_COLUMNS.replace("quakes = quakes.dropna(thresh=int(0.6 * len(quakes)), axis=1)",
                                  "quakes.dropna(axis='columns', thresh=900, inplace=True)")
    assert ("fit_before_split", line_of(text, "thresh=")) in alarms(tmp_path, text)


# --- F1: a validation part a helper receives from callers out of sight --------------------------------------------

EPOCH_HELPER = """\
import numpy as np
import torch
from sklearn.metrics import f1_score


def train_flare_net(model, X_tr, y_tr, X_val, y_val, epochs=30):
    optimizer = torch.optim.Adam(model.parameters())
    best_f1, best_state = -1.0, None
    for epoch in range(epochs):
        model.train()
        loss = torch.nn.functional.cross_entropy(model(torch.tensor(X_tr)), torch.tensor(y_tr))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        guesses = model(torch.tensor(X_val)).argmax(dim=-1).numpy()
        val_f1 = f1_score(y_val, guesses, average="macro")
        if val_f1 > best_f1:
            best_f1, best_state = val_f1, model.state_dict()
    model.load_state_dict(best_state)
    print(f"best val macro-F1={best_f1:.4f}")
    return model
"""


def test_best_epoch_on_a_validation_parameter_of_an_uncalled_helper_is_silent(tmp_path):
    assert ("tuned_on_test", line_of(EPOCH_HELPER, "if val_f1 > best_f1")) not in alarms(tmp_path, EPOCH_HELPER)


def test_best_epoch_on_a_test_parameter_of_an_uncalled_helper_still_reports(tmp_path):
    text = EPOCH_HELPER.replace("X_val", "X_test").replace("y_val", "y_test")
    assert ("tuned_on_test", line_of(text, "if val_f1 > best_f1")) in alarms(tmp_path, text)


def test_best_epoch_of_a_helper_called_on_the_only_held_out_part_still_reports(tmp_path):
    text = EPOCH_HELPER + (
        "\n\nX = np.load('flux.npy')\ny = np.load('cls.npy')\n"
        "net = train_flare_net(torch.nn.Linear(9, 4), X[:800], y[:800], X[800:], y[800:])\n")
    assert ("tuned_on_test", line_of(text, "if val_f1 > best_f1")) in alarms(tmp_path, text)


# --- M2: the label column named in the feature list --------------------------------------------------------------

LABEL_LISTED = """\
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split


def load(path):
    events = pd.read_csv(path)
    X = events[["lat", "lon", "depth_km", "mag"]].values
    y = events["mag"].values
    return X, y


X, y = load("events.csv")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""


def test_label_column_listed_among_the_features_reports(tmp_path):
    assert ("target_in_features", line_of(LABEL_LISTED, '"mag"]]')) in alarms(tmp_path, LABEL_LISTED)


def test_label_column_listed_among_the_features_of_a_split_reports(tmp_path):
    text = LABEL_LISTED.replace("    return X, y\n", "    return train_test_split(X, y, test_size=0.2)\n").replace(
        'X, y = load("events.csv")\nX_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)',
        'X_train, X_test, y_train, y_test = load("events.csv")')
    assert ("target_in_features", line_of(text, '"mag"]]')) in alarms(tmp_path, text)


def test_features_without_the_label_column_are_silent(tmp_path):
    text = LABEL_LISTED.replace('"depth_km", "mag"]]', '"depth_km"]]')
    assert not {k for k, _ in alarms(tmp_path, text)} & {"target_in_features"}


def test_current_label_as_input_for_the_next_value_is_silent(tmp_path):
    text = LABEL_LISTED.replace("    return X, y\n", "    X, y = X[:-1], y[1:]\n    return X, y\n")
    assert not {k for k, _ in alarms(tmp_path, text)} & {"target_in_features"}


# --- M3: a decision threshold read off the curve of a training table's split part named for testing ---------------

CURVE_PICK = """\
import joblib
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report, precision_recall_curve
from sklearn.model_selection import train_test_split

train_df = pd.read_csv("flux_train.csv")
X_all = train_df.drop("planet", axis=1).values
y_all = train_df["planet"].values - 1
X_train, X_test, y_train, y_test = train_test_split(X_all, y_all, test_size=0.2, stratify=y_all)
clf = LogisticRegression().fit(X_train, y_train)
joblib.dump(clf, "transit_clf.pkl")
proba = clf.predict_proba(X_test)[:, 1]
prec, rec, cuts = precision_recall_curve(y_test, proba)
f1s = 2 * prec * rec / (prec + rec + 1e-9)
at = np.argmax(f1s)
cut = cuts[at]
print(classification_report(y_test, (proba > cut).astype(int)))
"""


def test_threshold_read_off_the_test_named_part_of_a_training_table_reports(tmp_path):
    assert ("tuned_on_test", line_of(CURVE_PICK, "at = np.argmax")) in alarms(tmp_path, CURVE_PICK)


def test_threshold_read_off_a_validation_part_and_applied_to_the_test_part_is_silent(tmp_path):
    text = CURVE_PICK.replace(
        "clf = LogisticRegression().fit(X_train, y_train)",
        "X_fit, X_val, y_fit, y_val = train_test_split(X_train, y_train, test_size=0.25)\n"
        "clf = LogisticRegression().fit(X_fit, y_fit)").replace(
        "proba = clf.predict_proba(X_test)[:, 1]\nprec, rec, cuts = precision_recall_curve(y_test, proba)",
        "proba = clf.predict_proba(X_val)[:, 1]\nprec, rec, cuts = precision_recall_curve(y_val, proba)").replace(
        "print(classification_report(y_test, (proba > cut).astype(int)))",
        "print(classification_report(y_test, (clf.predict_proba(X_test)[:, 1] > cut).astype(int)))")
    assert "tuned_on_test" not in {k for k, _ in alarms(tmp_path, text)}


# --- M4: the best of a table of test scores whose helper reaches the metric through another helper ----------------

WRAPPED_METRICS = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split


def mae(y_true, y_pred):
    return float(mean_absolute_error(y_true, y_pred))


def summary(y_true, y_pred, name):
    return {"name": name, "mae": mae(y_true, y_pred), "bias": float(np.mean(y_pred - y_true))}


panels = pd.read_csv("panels.csv")
X_tr, X_te, y_tr, y_te = train_test_split(panels.drop(columns=["kw"]), panels["kw"], shuffle=False)
ridge_row = summary(y_te, Ridge().fit(X_tr, y_tr).predict(X_te), "ridge")
forest_row = summary(y_te, RandomForestRegressor().fit(X_tr, y_tr).predict(X_te), "forest")
rows = [ridge_row, forest_row]
table = pd.DataFrame(rows).set_index("name")
print(table)
print(f"best: {table['mae'].idxmin()} (MAE {table['mae'].min():.2f})")
"""


def test_best_row_of_test_scores_from_a_wrapped_metric_reports(tmp_path):
    assert ("tuned_on_test", line_of(WRAPPED_METRICS, "idxmin")) in alarms(tmp_path, WRAPPED_METRICS)


def test_table_of_test_scores_from_a_wrapped_metric_only_printed_is_silent(tmp_path):
    text = WRAPPED_METRICS.replace("""print(f"best: {table['mae'].idxmin()} (MAE {table['mae'].min():.2f})")\n""", "")
    assert "tuned_on_test" not in {k for k, _ in alarms(tmp_path, text)}


CALIBRATED_HELPER = """\
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import f1_score


def fit_calibrated(X_tr, y_tr, X_val, y_val):
    base = GradientBoostingClassifier().fit(X_tr, y_tr)
    calibrated = CalibratedClassifierCV(estimator=base, method="sigmoid", cv="prefit")
    calibrated.fit(X_val, y_val)
    print("calibrated F1", f1_score(y_val, calibrated.predict(X_val), average="macro"))
    return calibrated
"""


def test_prefit_calibration_on_a_validation_parameter_of_an_uncalled_helper_is_silent(tmp_path):
    assert "trained_on_test" not in {k for k, _ in alarms(tmp_path, CALIBRATED_HELPER)}


def test_prefit_calibration_on_a_test_parameter_of_an_uncalled_helper_still_reports(tmp_path):
    text = CALIBRATED_HELPER.replace("X_val", "X_test").replace("y_val", "y_test")
    assert "trained_on_test" in {k for k, _ in alarms(tmp_path, text)}


THREE_BLOCKS = """\
import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import f1_score

flares = pd.read_csv("flares.csv")
years = flares["year"]
X, y = flares.drop(columns=["cls", "year"]), flares["cls"]
X_tr, y_tr = X[years <= 2021], y[years <= 2021]
X_val, y_val = X[years == 2022], y[years == 2022]
X_test, y_test = X[years >= 2023], y[years >= 2023]
base = GradientBoostingClassifier().fit(X_tr, y_tr)
calibrated = CalibratedClassifierCV(estimator=base, method="sigmoid", cv="prefit")
calibrated.fit(X_val, y_val)
print("val F1", f1_score(y_val, calibrated.predict(X_val), average="macro"))
print("test F1", f1_score(y_test, calibrated.predict(X_test), average="macro"))
"""


def test_prefit_calibration_on_the_validation_block_of_a_three_way_split_is_silent(tmp_path):
    assert "trained_on_test" not in {k for k, _ in alarms(tmp_path, THREE_BLOCKS)}
