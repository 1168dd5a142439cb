"""The static leakage analysis on the kinds a held-out wave of geospatial, crop-yield and air-quality code showed
(issue 17, wave 95), in both directions:

* a KerasTuner search (``Hyperband``, ``RandomSearch``...) given the test part as ``validation_data``, with a
  ``val_*`` objective, whose best hyperparameters are then taken: the test rows chose them (``tuned_on_test``,
  kerastuners.py). A search on a validation part carved from the training rows, or with a training objective
  (``'loss'``), is silent;
* the rows a validity mask keeps, copied (``X_valid = X[valid_mask].copy()``: the rows that have a value), are not
  a validation part: a scaler fitted on the training part of their split is no fit on held-out rows; fitted before
  a search's cross-validation of that part, it is ``fit_outside_cv`` (masks.py);
* a fold loop that trains nothing and leaves nothing behind (it only binds the folds' rows to names nothing
  after it reads) is no cross-validation: an imputer fitted before it is silent; a loop that scores its folds, or
  whose last fold is scored after it, is not (encodingfolds.py).

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_wave92 import alarms, line_of

# ---------------------------------------------------------------- a KerasTuner search told the test rows

SEARCH = """\
    import numpy as np
    import keras_tuner as kt
    from tensorflow import keras
    from sklearn.model_selection import train_test_split

    readings = np.load("station_windows.npy")
    levels = np.load("station_levels.npy")
    X_fit, X_test, y_fit, y_test = train_test_split(readings, levels, test_size=0.25, shuffle=False)
{carve}

    def build(hp):
        net = keras.Sequential([keras.layers.LSTM(hp.Int("width", 16, 64, step=16)), keras.layers.Dense(1)])
        net.compile(optimizer="adam", loss="mse")
        return net

    tuner = kt.{cls}(build, objective={objective}, max_epochs=8, directory="runs", project_name="levels")
    tuner.search(X_fit, y_fit, epochs=8, validation_data=({vx}, {vy}))
    chosen = tuner.get_best_hyperparameters(1)[0]
    final = build(chosen)
    final.fit(X_fit, y_fit, epochs=8)
    print(final.evaluate(X_test, y_test))
"""


def _search(tmp_path, *, cls="Hyperband", objective="'val_loss'", vx="X_test", vy="y_test", carve=""):
    return write(tmp_path, "tune.py", SEARCH.format(cls=cls, objective=objective, vx=vx, vy=vy, carve=carve))


def test_a_keras_tuner_search_on_the_test_part_is_reported(tmp_path):
    path = _search(tmp_path)
    assert ("tuned_on_test", line_of(path, "tuner.search(")) in alarms(path)


def test_a_keras_tuner_objective_object_on_the_test_part_is_reported(tmp_path):
    path = _search(tmp_path, cls="RandomSearch", objective="kt.Objective('val_mae', direction='min')")
    assert ("tuned_on_test", line_of(path, "tuner.search(")) in alarms(path)


def test_a_keras_tuner_search_on_a_validation_part_of_the_training_rows_is_silent(tmp_path):
    carve = "    X_fit, X_hold, y_fit, y_hold = train_test_split(X_fit, y_fit, test_size=0.2, shuffle=False)"
    path = _search(tmp_path, vx="X_hold", vy="y_hold", carve=carve)
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(path))


def test_a_keras_tuner_search_ranked_by_a_training_metric_is_silent(tmp_path):
    path = _search(tmp_path, objective="'loss'")
    assert not any(kind == "tuned_on_test" for kind, _ in alarms(path))


# ---------------------------------------------------------------- the copied rows a validity mask keeps

MASKED = """\
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import train_test_split, RandomizedSearchCV
    from sklearn.preprocessing import StandardScaler
    from sklearn.ensemble import RandomForestRegressor

    stations = pd.read_csv("stations.csv")
    first_stage = np.load("first_stage_estimates.npy")
    X = stations[["wind", "humidity", "pressure"]].copy()
    y = stations["pm_next_day"]
    valid_mask = ~np.isnan(first_stage)
    X_valid = X[valid_mask].copy()
    y_valid = y[valid_mask].copy()
    X_train, X_test, y_train, y_test = train_test_split(X_valid, y_valid, test_size=0.2, shuffle=False)
    scaler = StandardScaler()
    X_train_scaled = scaler.fit_transform(X_train)
    X_test_scaled = scaler.transform(X_test)
{tail}
"""

SEARCHED = """\
    search = RandomizedSearchCV(RandomForestRegressor(), {"max_depth": [4, 8]}, n_iter=2, cv=3)
    search.fit(X_train_scaled, y_train)
    print(search.best_estimator_.score(X_test_scaled, y_test))
"""

PLAIN = """\
    forest = RandomForestRegressor().fit(X_train_scaled, y_train)
    print(forest.score(X_test_scaled, y_test))
"""


def test_a_scaler_on_the_training_part_of_copied_valid_rows_before_a_search_is_fit_outside_cv(tmp_path):
    path = write(tmp_path, "hybrid.py", MASKED.format(tail=SEARCHED))
    found = alarms(path)
    at = line_of(path, "scaler.fit_transform")
    assert ("fit_outside_cv", at) in found, found
    assert ("fit_on_test", at) not in found, found


def test_a_scaler_on_the_training_part_of_copied_valid_rows_is_silent(tmp_path):
    path = write(tmp_path, "hybrid.py", MASKED.format(tail=PLAIN))
    assert alarms(path) == []


# ---------------------------------------------------------------- a fold loop that leaves nothing behind

FOLDS = """\
    import pandas as pd
    from sklearn.impute import KNNImputer
    from sklearn.model_selection import KFold
    from sklearn.ensemble import GradientBoostingRegressor

    farms = pd.read_csv("farm_plots.csv")
    X = farms.drop(columns=["harvest"])
    y = farms["harvest"]
    X = pd.DataFrame(KNNImputer().fit_transform(X), columns=X.columns)
    kf = KFold(n_splits=4, shuffle=True, random_state=1)
{body}
"""

SLICES_ONLY = """\
    for fit_rows, held_rows in kf.split(X):
        X_k = X[X.index.isin(fit_rows)]
        y_k = y[y.index.isin(fit_rows)]
        X_h = X[X.index.isin(held_rows)]
"""

SCORED = """\
    scores = []
    for fit_rows, held_rows in kf.split(X):
        X_k = X[X.index.isin(fit_rows)]
        y_k = y[y.index.isin(fit_rows)]
        X_h = X[X.index.isin(held_rows)]
        y_h = y[y.index.isin(held_rows)]
        scores.append(GradientBoostingRegressor().fit(X_k, y_k).score(X_h, y_h))
    print(sum(scores) / len(scores))
"""

KEPT_FOR_LATER = SLICES_ONLY + """\
    booster = GradientBoostingRegressor().fit(X_k, y_k)
    print(booster.score(X_h, y[y.index.isin(held_rows)]))
"""


def test_an_imputer_before_a_fold_loop_that_only_slices_rows_is_silent(tmp_path):
    path = write(tmp_path, "folds.py", FOLDS.format(body=SLICES_ONLY))
    assert not any(kind == "fit_outside_cv" for kind, _ in alarms(path))


def test_an_imputer_before_a_fold_loop_that_scores_each_fold_is_reported(tmp_path):
    path = write(tmp_path, "folds.py", FOLDS.format(body=SCORED))
    assert ("fit_outside_cv", line_of(path, "KNNImputer().fit_transform")) in alarms(path)


def test_an_imputer_before_a_fold_loop_whose_last_fold_is_scored_after_it_is_reported(tmp_path):
    path = write(tmp_path, "folds.py", FOLDS.format(body=KEPT_FOR_LATER))
    assert any(kind in ("fit_outside_cv", "fit_before_split") for kind, _ in alarms(path)), alarms(path)
