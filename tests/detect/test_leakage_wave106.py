"""Kinds of issue 17's held-out wave 106 (retail, supply chain and operations forecasting), both directions. Every
example is a small script written for this test (no public code)."""

from __future__ import annotations

from tests.detect.test_leakage_crossmodule import _alarms, _write
from tests.detect.test_leakage_wave102 import _lines

# --- M1: the best candidate read off a sorted table of test scores (head(1)), in the script or in a helper ----------

#: each k is scored on the test rows, the records are sorted by error and the first row (head(1)) gives k, refitted
KNN_HEAD = """\
import pandas as pd
from sklearn.neighbors import KNeighborsRegressor
from sklearn.metrics import mean_absolute_error

def score(y_true, y_pred):
    return {"mae": mean_absolute_error(y_true, y_pred)}

def run():
    shop = pd.read_csv("shop.csv")
    x_train, y_train = shop[shop.day < 300].drop(columns="units"), shop[shop.day < 300].units
    x_test, y_test = shop[shop.day >= 300].drop(columns="units"), shop[shop.day >= 300].units
    tried = []
    for k in range(3, 20):
        knn = KNeighborsRegressor(n_neighbors=k)
        knn.fit(x_train, y_train)
        guess = knn.predict(x_test)
        err = score(y_test, guess)
        tried.append({**err, "k": k})
    table = pd.DataFrame(tried)
    table = table.sort_values("mae")
    top = table.head(1)
    k = top["k"].values[0]
    knn = KNeighborsRegressor(n_neighbors=k)
    knn.fit(x_train, y_train)
    print(score(y_test, knn.predict(x_test)))

run()
"""


def test_head_of_the_sorted_test_error_table_picks_the_k_at_the_scoring_line(tmp_path):
    assert _lines(tmp_path, "knnfit.py", KNN_HEAD) == {16}


def test_head_of_a_table_of_validation_errors_is_silent(tmp_path):
    held = KNN_HEAD.replace("x_test, y_test = shop[shop.day >= 300]", "x_val, y_val = shop[shop.day >= 300]")
    held = held.replace("knn.predict(x_test)", "knn.predict(x_val)").replace("score(y_test, guess)", "score(y_val, guess)")
    assert _lines(tmp_path, "knnfit.py", held.replace("print(score(y_test, knn.predict(x_test)))", "print(k)")) == set()


#: a helper module's search: each setting scored on the test rows it is handed, the score appended to a list by
#: another helper, the list sorted by a third that returns the first row's setting; the script refits and reports
SEARCH_HELPERS = """\
from itertools import product

import pandas as pd
from sklearn.metrics import mean_absolute_error


def tally(y_test, board, setting, guess):
    board.append({"mae": mean_absolute_error(y_test, guess), "setting": setting})


def winner(board):
    ranked = pd.DataFrame(board).sort_values("mae")
    return ranked.head(1).to_dict("records")[0]["setting"]


def search(Regressor, grid, x_train, y_train, x_test, y_test):
    settings = [dict(zip(grid, v)) for v in product(*grid.values())]
    board = []
    for setting in settings:
        model = Regressor(**setting)
        model.fit(x_train, y_train)
        guess = model.predict(x_test)
        tally(y_test, board, setting, guess)
    best = winner(board)
    return best


def search_nets(build, grid, x_train, y_train, x_test, y_test):
    board = []
    for setting in grid:
        net = build(x_train.shape[1], layers=setting["layers"])
        net.fit(x_train, y_train, epochs=setting["epochs"], verbose=0)
        guess = net.predict(x_test)
        tally(y_test, board, setting, guess)
    return winner(board)
"""

#: the training script hands its test part to the search and scores the refitted winner on it
FOREST = """\
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error

from tools.search import search

shop = pd.read_csv("shop.csv")
early, late = shop[shop.day < 300], shop[shop.day >= 300]
x_train, y_train = early.drop(columns="units"), early.units
x_test, y_test = late.drop(columns="units"), late.units
best = search(RandomForestRegressor, {"max_depth": [4, 8], "n_estimators": [50, 100]}, x_train, y_train, x_test, y_test)
forest = RandomForestRegressor(**best).fit(x_train, y_train)
print(mean_absolute_error(y_test, forest.predict(x_test)))
"""


def test_search_helper_picking_the_best_test_score_is_reported_in_the_helper(tmp_path):
    _write(tmp_path, {"tools/search.py": SEARCH_HELPERS, "forest.py": FOREST})
    assert ("tuned_on_test", "search.py", 22) in _alarms(tmp_path, "forest.py")


def test_search_helper_handed_a_validation_part_is_silent(tmp_path):
    helpers = SEARCH_HELPERS.replace("y_test", "y_val").replace("x_test", "x_val")
    script = FOREST.replace("x_train, y_train, x_test, y_test)", "x_train, y_train, x_val, y_val)").replace(
        "early, late = shop[shop.day < 300], shop[shop.day >= 300]",
        "early, mid, late = shop[shop.day < 250], shop[(shop.day >= 250) & (shop.day < 300)], shop[shop.day >= 300]")
    script = script.replace("x_test, y_test = late", "x_val, y_val = mid.drop(columns=\"units\"), mid.units\n"
                            "x_test, y_test = late")
    _write(tmp_path, {"tools/search.py": helpers, "forest.py": script})
    assert {a for a in _alarms(tmp_path, "forest.py") if a[0] == "tuned_on_test"} == set()


def test_search_helper_whose_scores_are_only_returned_unsorted_is_silent(tmp_path):
    helpers = SEARCH_HELPERS.replace("    best = winner(board)\n    return best", "    return board")
    script = FOREST.replace("forest = RandomForestRegressor(**best)", "forest = RandomForestRegressor(**best[0][\"setting\"])")
    _write(tmp_path, {"tools/search.py": helpers, "forest.py": script})
    assert {a for a in _alarms(tmp_path, "forest.py") if a[0] == "tuned_on_test"} == set()


# --- M2: a darts model stopped early on its val_series (Lightning EarlyStopping) and scored on that series ---------

#: the trainer's callbacks stop on the validation loss; the fit gets val_series through a kwargs dict, the forecast
#: of that horizon is scored against the same validation series
DARTS_STOP = """\
import pandas as pd
from darts import TimeSeries
from darts.models import NBEATSModel
from darts.metrics import mae
from pytorch_lightning.callbacks import EarlyStopping


def trainer_options(patience=5):
    halt = EarlyStopping(monitor="val_loss", patience=patience, mode="min")
    return {"pl_trainer_kwargs": {"callbacks": [halt]}}


def evaluate(frame):
    sales = TimeSeries.from_dataframe(frame, "week", "units")
    fit_part, check_part = sales.split_before(0.8)
    net = NBEATSModel(input_chunk_length=12, output_chunk_length=4, **trainer_options())
    options = {"series": fit_part}
    options["val_series"] = check_part
    net.fit(**options)
    guess = net.predict(n=len(check_part))
    return mae({scored}, guess)


print(evaluate(pd.read_csv("weekly.csv")))
"""


def test_darts_fit_stopped_on_the_series_it_is_scored_on_is_reported_at_the_fit(tmp_path):
    assert _lines(tmp_path, "weekly.py", DARTS_STOP.replace("{scored}", "check_part")) == {19}


def test_darts_fit_with_the_keyword_val_series_is_reported_too(tmp_path):
    body = DARTS_STOP.replace("{scored}", "check_part").replace(
        '    options = {"series": fit_part}\n    options["val_series"] = check_part\n    net.fit(**options)\n',
        "    net.fit(fit_part, val_series=check_part)\n\n\n")
    assert _lines(tmp_path, "weekly.py", body) == {17}


def test_darts_forecast_scored_on_a_part_the_stop_never_saw_is_silent(tmp_path):
    body = DARTS_STOP.replace("{scored}", "last_part").replace(
        "    fit_part, check_part = sales.split_before(0.8)\n",
        "    rest, last_part = sales.split_before(0.9)\n    fit_part, check_part = rest.split_before(0.8)\n")
    assert _lines(tmp_path, "weekly.py", body) == set()


def test_darts_val_series_without_an_early_stop_is_silent(tmp_path):
    body = DARTS_STOP.replace("{scored}", "check_part").replace(
        '    halt = EarlyStopping(monitor="val_loss", patience=patience, mode="min")\n', "    halt = None\n")
    assert _lines(tmp_path, "weekly.py", body) == set()


# --- F1: a calibration map fitted on validation predictions put back through a loaded scaler's inverse_transform ---

#: a helper maps scaled values back with a scaler the script loads (the analysis does not know it as an estimator)
RESTORE = """\
import numpy as np


def restore(arr, scaler):
    arr = np.asarray(arr).reshape(-1, 1)
    return scaler.inverse_transform(arr).ravel()
"""

#: predictions of each part are mapped back; the calibrator is fitted on the validation part's, applied to the test
#: part's, and the test part is scored
CALIBRATED = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error
from sklearn.preprocessing import StandardScaler

from tools.scaling import restore


def mapped(m, x):
    x = np.asarray(x).ravel()
    return m.predict(x.reshape(-1, 1))


def evaluate(model, X_train, y_train, X_val, y_val, X_test, y_test, y_scaler):
    train_pred = model.predict(X_train)
    val_pred = model.predict(X_val)
    test_pred = model.predict(X_test)
    y_train_eval = restore(y_train, y_scaler)
    y_val_eval = restore(y_val, y_scaler)
    y_test_eval = restore(y_test, y_scaler)
    train_pred = restore(train_pred, y_scaler)
    val_pred = restore(val_pred, y_scaler)
    test_pred = restore(test_pred, y_scaler)
    val_x = np.asarray(val_pred).ravel()
    val_y = np.asarray(y_val_eval).ravel()
    cal = LinearRegression()
    cal.fit(val_x.reshape(-1, 1), val_y)
    return mean_absolute_error(y_test_eval, mapped(cal, test_pred))


days = pd.read_csv("days.csv")
X, y = days.drop(columns="units").values, days["units"].values.reshape(-1, 1)
import pickle
y_scaler = pickle.load(open("scaler.pkl", "rb"))
y = y_scaler.transform(y).ravel()
X_train, X_val, X_test = X[:300], X[300:350], X[350:]
y_train, y_val, y_test = y[:300], y[300:350], y[350:]
forest = RandomForestRegressor().fit(X_train, y_train)
print(evaluate(forest, X_train, y_train, X_val, y_val, X_test, y_test, y_scaler))
"""


def test_calibrator_fitted_on_validation_predictions_mapped_back_by_a_loaded_scaler_is_silent(tmp_path):
    _write(tmp_path, {"tools/scaling.py": RESTORE, "calib.py": CALIBRATED})
    assert {a for a in _alarms(tmp_path, "calib.py") if a[0] == "trained_on_test"} == set()


def test_calibrator_fitted_on_the_test_predictions_it_then_maps_and_scores_is_reported(tmp_path):
    body = CALIBRATED.replace("val_x = np.asarray(val_pred)", "val_x = np.asarray(test_pred)").replace(
        "val_y = np.asarray(y_val_eval)", "val_y = np.asarray(y_test_eval)")
    _write(tmp_path, {"tools/scaling.py": RESTORE, "calib.py": body})
    assert ("trained_on_test", "calib.py", 29) in _alarms(tmp_path, "calib.py")
