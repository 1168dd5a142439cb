"""The static leakage analysis on the kinds a held-out wave of time-series projects showed (issue 17, wave 84: stock
and crypto forecasts, bearing faults, turbofan run-to-failure, taxi demand), in both directions:

* a loop that hands each candidate model to a scoring helper (in the same file, or in the project's own package that
  a notebook imports as ``from src import models``) and keeps the best test score is ``tuned_on_test``; a list of
  nine or more candidate models is walked item by item;
* Keras callbacks a helper function returns (``callbacks=make_callbacks(...)``) stop on the test rows, a notebook
  whose ``sys.path`` entry is built on ``os.getcwd()``;
* a grouped unit's clock rescaled by its own ends (``groupby('unit')['cycle'].transform(lambda t: t / t.max())``) is
  no statistic of the held-out rows;
* training and validation files a helper reads, stacked for the final refit, are that refit's training set.

Every example is a small project written for this test (no public code)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".ipynb"):
            cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                      "source": textwrap.dedent(c)} for c in text.split("# %%\n")]
            path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        else:
            path.write_text(textwrap.dedent(text))


def _alarms(root: Path, entry: str) -> set[tuple[str, str, object, int]]:
    """(kind, file name, cell or None, line) of every finding at warning or above."""
    report, _ = analyze_file(str(root / entry))
    return {(f.kind, Path(f.location.get("file", "")).name, f.location.get("index"), f.location.get("line"))
            for f in report.findings if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}


def _kinds(root: Path, entry: str) -> set[str]:
    return {a[0] for a in _alarms(root, entry)}


# ---------------------------------------------------------------- candidates handed to a scoring helper

#: the project's package: a scoring helper re-exported by the subpackage's __init__, and a plotting module
PACKAGE = {
    "src/__init__.py": "",
    "src/modelling/__init__.py": """\
        from .scoring import score_regressor
        from .charts import bar_chart

        __all__ = ["score_regressor", "bar_chart"]
    """,
    "src/modelling/scoring.py": """\
        import numpy as np
        from sklearn.metrics import mean_absolute_error


        def score_regressor(regressor, X_fit, y_fit, X_eval, y_eval, label):
            regressor.fit(X_fit, y_fit)
            guess = regressor.predict(X_eval)
            return {"label": label, "mae": float(mean_absolute_error(y_eval, guess))}
    """,
    "src/modelling/charts.py": """\
        import matplotlib.pyplot as plt


        def bar_chart(table, column):
            table.plot.bar(y=column)
            plt.show()
    """,
}

#: nine candidate classes in a dict, built by a comprehension, scored in a loop through the package's helper
NOTEBOOK_HEAD = """\
import pandas as pd
from sklearn.linear_model import LinearRegression, Ridge, Lasso, ElasticNet, HuberRegressor
from sklearn.tree import DecisionTreeRegressor
from sklearn.ensemble import RandomForestRegressor, ExtraTreesRegressor
from sklearn.neighbors import KNeighborsRegressor
from sklearn.model_selection import train_test_split
from src import modelling
# %%
engines = pd.read_csv("data/engines.csv")
X_tr, X_te, y_tr, y_te = train_test_split(engines.drop(columns="rul"), engines["rul"], test_size=0.25)
X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2)
REGRESSORS = {"lin": LinearRegression, "ridge": Ridge, "lasso": Lasso, "enet": ElasticNet, "huber": HuberRegressor,
              "tree": DecisionTreeRegressor, "forest": RandomForestRegressor, "extra": ExtraTreesRegressor,
              "knn": KNeighborsRegressor}
candidates = [(label, kind()) for label, kind in REGRESSORS.items()]
# %%
"""


def _scored_through_package(tmp_path: Path, rows: str, tail: str) -> set[tuple[str, str, object, int]]:
    body = f"""\
rows = []
for label, regressor in candidates:
    rows.append(modelling.score_regressor(regressor, X_fit, y_fit, {rows}, label))
table = pd.DataFrame(rows).sort_values("mae")
modelling.bar_chart(table, "mae")
{tail}"""
    _write(tmp_path, {**PACKAGE, "compare.ipynb": NOTEBOOK_HEAD + body})
    return _alarms(tmp_path, "compare.ipynb")


def test_best_of_candidates_scored_on_test_rows_by_a_package_helper_is_tuned_on_test(tmp_path):
    found = _scored_through_package(tmp_path, "X_te, y_te", 'best = table.iloc[0]["label"]\nprint(best)\n')
    assert ("tuned_on_test", "compare.ipynb", 3, 3) in found


def test_candidates_scored_on_a_validation_part_by_the_helper_stay_silent(tmp_path):
    found = _scored_through_package(tmp_path, "X_val, y_val", 'best = table.iloc[0]["label"]\nprint(best)\n')
    assert "tuned_on_test" not in {a[0] for a in found}


def test_candidates_scored_on_test_rows_only_charted_stay_silent(tmp_path):
    found = _scored_through_package(tmp_path, "X_te, y_te", "print(table)\n")
    assert "tuned_on_test" not in {a[0] for a in found}


#: a script: pipelines in a dict, a helper in the same file scores each on the parts it is given
SAME_FILE = """\
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import Ridge
from sklearn.svm import SVR
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

prices = pd.read_csv("coins.csv")
X_a, X_b, y_a, y_b = train_test_split(prices.drop(columns="next_close"), prices["next_close"], shuffle=False)
PIPES = {"ridge": Pipeline([("s", StandardScaler()), ("m", Ridge())]),
         "svr": Pipeline([("s", StandardScaler()), ("m", SVR())])}


def run_one(candidate, X_fit, y_fit, X_eval, y_eval):
    candidate.fit(X_fit, y_fit)
    return r2_score(y_eval, candidate.predict(X_eval))


scores = {}
for label, pipe in PIPES.items():
    scores[label] = {"r2": {call}}
board = pd.DataFrame(scores).T
print(board["r2"].idxmax())
"""


def test_pipelines_handed_to_a_scoring_helper_and_best_kept_is_tuned_on_test(tmp_path):
    _write(tmp_path, {"coins.py": SAME_FILE.replace("{call}", "run_one(pipe, X_a, y_a, X_b, y_b)")})
    assert ("tuned_on_test", "coins.py", None, 17) in _alarms(tmp_path, "coins.py")


def test_one_pipeline_scored_per_seed_through_the_helper_stays_silent(tmp_path):
    seeds = SAME_FILE.replace("for label, pipe in PIPES.items():", "for label in range(3):").replace(
        "{call}", 'run_one(PIPES["ridge"].set_params(m__random_state=label), X_a, y_a, X_b, y_b)')
    _write(tmp_path, {"coins.py": seeds.replace("m__random_state=label", "m__alpha=1.0")})
    assert "tuned_on_test" not in _kinds(tmp_path, "coins.py")


# ---------------------------------------------------------------- callbacks a helper returns

NETWORK = """\
import os
from keras.callbacks import EarlyStopping, ModelCheckpoint, ReduceLROnPlateau


def make_callbacks(path, patience=10):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return [
        EarlyStopping(monitor="{monitor}", patience=patience, restore_best_weights=True),
        ReduceLROnPlateau(monitor="{monitor}", factor=0.5),
        ModelCheckpoint(path, monitor="{monitor}", save_best_only=True),
    ]
"""

TRAIN_NOTEBOOK = """\
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "..", "lib"))
import numpy as np
from keras.models import Sequential
from keras.layers import LSTM, Dense
from network import make_callbacks
# %%
windows, targets = np.load("../data/windows.npy"), np.load("../data/targets.npy")
cut = int(len(windows) * 0.8)
X_tr, X_te, y_tr, y_te = windows[:cut], windows[cut:], targets[:cut], targets[cut:]
net = Sequential([LSTM(32), Dense(1)])
net.compile(loss="mse", optimizer="adam")
# %%
hooks = make_callbacks("../models/best.keras", patience=8)
net.fit(X_tr, y_tr, validation_data=({held}), epochs=60, callbacks=hooks)
print(net.evaluate(X_te, y_te))
"""


def test_early_stopping_from_a_helper_module_on_the_test_windows_is_tuned_on_test(tmp_path):
    _write(tmp_path, {"lib/network.py": NETWORK.replace("{monitor}", "val_loss"),
                      "notebooks/train.ipynb": TRAIN_NOTEBOOK.replace("{held}", "X_te, y_te")})
    assert ("tuned_on_test", "train.ipynb", 3, 2) in _alarms(tmp_path, "notebooks/train.ipynb")


def test_helper_callbacks_watching_the_training_loss_stay_silent(tmp_path):
    _write(tmp_path, {"lib/network.py": NETWORK.replace("{monitor}", "loss"),
                      "notebooks/train.ipynb": TRAIN_NOTEBOOK.replace("{held}", "X_te, y_te")})
    assert "tuned_on_test" not in _kinds(tmp_path, "notebooks/train.ipynb")


def test_helper_callbacks_on_a_validation_part_stay_silent(tmp_path):
    notebook = TRAIN_NOTEBOOK.replace("{held}", "X_val, y_val").replace(
        "net = Sequential", "X_tr, X_val, y_tr, y_val = X_tr[:-200], X_tr[-200:], y_tr[:-200], y_tr[-200:]\n"
                            "net = Sequential")
    _write(tmp_path, {"lib/network.py": NETWORK.replace("{monitor}", "val_loss"),
                      "notebooks/train.ipynb": notebook})
    assert "tuned_on_test" not in _kinds(tmp_path, "notebooks/train.ipynb")


# ---------------------------------------------------------------- a unit's own clock

TURBOFAN = """\
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

fleet = pd.read_csv("train_units.csv")
probe = pd.read_csv("test_units.csv")
{lines}
features = ["cycle", "sensor_2", "sensor_7"]
booster = GradientBoostingRegressor().fit(fleet[features], fleet["rul"])
print(booster.score(probe[features], probe["rul"]))
"""


def test_each_test_unit_cycle_rescaled_by_its_last_cycle_stays_silent(tmp_path):
    lines = ('fleet["cycle"] = fleet.groupby("unit")["cycle"].transform(lambda t: t / t.max())\n'
             'probe["cycle"] = probe.groupby("unit")["cycle"].transform(lambda t: t / t.max())')
    _write(tmp_path, {"rul.py": TURBOFAN.replace("{lines}", lines)})
    assert "fit_on_test" not in _kinds(tmp_path, "rul.py")


def test_each_test_unit_sensor_standardised_by_its_own_mean_is_still_a_statistic(tmp_path):
    lines = 'probe["sensor_2"] = probe.groupby("unit")["sensor_2"].transform(lambda s: (s - s.mean()) / s.std())'
    _write(tmp_path, {"rul.py": TURBOFAN.replace("{lines}", lines)})
    assert "fit_on_test" in _kinds(tmp_path, "rul.py")


# ---------------------------------------------------------------- a helper that reads each split's file

SPLITS_HELPER = """\
import numpy as np
from pathlib import Path

STORE = Path("features")


def read_split(which, store=STORE):
    where = store / f"{which}_windows.npz"
    if not where.exists():
        raise FileNotFoundError(where)
    blob = np.load(where)
    return blob["X"], blob["y"]
"""

REFIT = """\
import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.metrics import accuracy_score
from splits import read_split


def main():
    X_a, y_a = read_split("{first}")
    X_b, y_b = read_split("{second}")
    X_test, y_test = read_split("test")
    X_all = np.concatenate([X_a, X_b], axis=0)
    y_all = np.concatenate([y_a, y_b], axis=0)
    scaler = StandardScaler().fit(X_all)
    model = SVC().fit(scaler.transform(X_all), y_all)
    print(accuracy_score(y_test, model.predict(scaler.transform(X_test))))


main()
"""


def test_train_and_validation_files_stacked_for_the_final_refit_stay_silent(tmp_path):
    script = REFIT.replace("X_a, y_a", "X_train, y_train").replace("X_b, y_b", "X_val, y_val").replace(
        "[X_a, X_b]", "[X_train, X_val]").replace("[y_a, y_b]", "[y_train, y_val]")
    _write(tmp_path, {"splits.py": SPLITS_HELPER, "refit.py": script.replace("{first}", "train").replace(
        "{second}", "val")})
    assert "fit_on_test" not in _kinds(tmp_path, "refit.py")


def test_train_and_test_files_stacked_before_the_fit_are_still_a_fit_on_test(tmp_path):
    script = REFIT.replace("X_a, y_a", "X_train, y_train").replace('    X_b, y_b = read_split("{second}")\n', "").replace(
        "[X_a, X_b]", "[X_train, X_test]").replace("[y_a, y_b]", "[y_train, y_test]")
    _write(tmp_path, {"splits.py": SPLITS_HELPER, "refit.py": script.replace("{first}", "train")})
    assert "fit_on_test" in _kinds(tmp_path, "refit.py")


# ---------------------------------------------------------------- quantile bounds unpacked into names

WINSOR = """\
import pandas as pd
from sklearn.linear_model import Ridge

days = pd.read_csv("quotes.csv")
cut = int(len(days) * 0.8)
{bounds}
days["ret"] = days["ret"].clip(lower=low, upper=high)
early, late = days[:cut], days[cut:]
model = Ridge().fit(early[["ret", "vol"]], early["next_ret"])
print(model.score(late[["ret", "vol"]], late["next_ret"]))
"""


def test_return_bounds_unpacked_from_quantiles_of_every_day_are_fitted_before_the_split(tmp_path):
    _write(tmp_path, {"winsor.py": WINSOR.replace("{bounds}", 'low, high = days["ret"].quantile([0.005, 0.995])')})
    assert ("fit_before_split", "winsor.py", None, 6) in _alarms(tmp_path, "winsor.py")


def test_return_bounds_unpacked_from_the_earlier_days_only_stay_silent(tmp_path):
    bounds = 'low, high = days["ret"][:cut].quantile([0.005, 0.995])'
    _write(tmp_path, {"winsor.py": WINSOR.replace("{bounds}", bounds)})
    assert "fit_before_split" not in _kinds(tmp_path, "winsor.py")


# ---------------------------------------------------------------- windows cut with a hop shorter than the window

WINDOWS = """\
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier

SPAN = 2048
SHARE = 0.5


def chop(trace, span=SPAN, share=SHARE):
    hop = {hop}
    begins = range(0, len(trace) - span + 1, hop)
    return np.stack([trace[b:b + span] for b in begins])


vibration = np.load("vibration.npy")
condition = np.load("condition.npy")
pieces = chop(vibration)
X_tr, X_te, y_tr, y_te = train_test_split(pieces, condition, test_size=0.2, stratify=condition)
forest = RandomForestClassifier().fit(X_tr, y_tr)
print(forest.score(X_te, y_te))
"""


def test_half_overlapping_windows_split_with_shuffling_are_a_shuffled_time_split(tmp_path):
    _write(tmp_path, {"chop.py": WINDOWS.replace("{hop}", "int(span * (1.0 - share))")})
    assert ("shuffled_time_split", "chop.py", None, 18) in _alarms(tmp_path, "chop.py")


def test_windows_side_by_side_split_with_shuffling_stay_silent(tmp_path):
    _write(tmp_path, {"chop.py": WINDOWS.replace("{hop}", "span")})
    assert "shuffled_time_split" not in _kinds(tmp_path, "chop.py")
