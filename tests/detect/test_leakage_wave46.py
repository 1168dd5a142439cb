"""The static leakage analysis on the kinds held-out wave 46 of public code showed (course notebooks with exercise
stubs, lag matrices filled column by column from a scaled series), in both directions. Every example is written
for this test."""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.leakage_source import alarms

# a series scaled by its own range, a lag matrix preallocated with np.zeros and filled one column a pass, then a
# cut in time: the test half was part of the range
LAGS_FROM_A_SCALED_SERIES = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

table = pd.read_csv("visitors.csv")
level = table["visitors"].values.astype(float)
level = level / level.max()
width = 4
n = len(level) - width
lags = np.zeros((n, width))
for k in range(width):
    lags[:, k] = level[k:k + n]
target = level[width:width + n]
lags_fit, target_fit = lags[:n // 2], target[:n // 2]
lags_held, target_held = lags[n // 2:], target[n // 2:]
reg = LinearRegression().fit(lags_fit, target_fit)
print(reg.score(lags_held, target_held))
"""

# the same lag matrix, the range taken on the first half only: nothing of the held-out half shaped it
LAGS_SCALED_ON_THE_FIRST_HALF = LAGS_FROM_A_SCALED_SERIES.replace(
    "level = level / level.max()", "level = level / level[:len(level) // 2].max()")

# a matrix filled column by column from raw columns, scaled by a scaler fitted on the training rows only
COLUMNS_FILLED_THEN_SCALED_ON_TRAIN = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

table = pd.read_csv("sensors.csv")
feats = np.empty((len(table), 2))
feats[:, 0] = table["temp"].values
feats[:, 1] = table["hum"].values
f_tr, f_te, y_tr, y_te = train_test_split(feats, table["alarm"].values, random_state=1)
sc = StandardScaler().fit(f_tr)
clf = LogisticRegression().fit(sc.transform(f_tr), y_tr)
print(clf.score(sc.transform(f_te), y_te))
"""

# the same matrix, its columns standardised by hand over every row before the split
COLUMNS_STANDARDISED_ON_ALL_ROWS = COLUMNS_FILLED_THEN_SCALED_ON_TRAIN.replace(
    'feats[:, 0] = table["temp"].values',
    'feats[:, 0] = (table["temp"] - table["temp"].mean()).values')

# out-of-fold predictions written row by row into a preallocated vector: rows chosen by the fold, not a column
OUT_OF_FOLD_ROWS = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

table = pd.read_csv("clicks.csv")
X, y = table.drop(columns="click").values, table["click"].values
oof = np.zeros(len(X))
for tr, va in KFold(5).split(X):
    sc = StandardScaler().fit(X[tr])
    model = LogisticRegression().fit(sc.transform(X[tr]), y[tr])
    oof[va] = model.predict_proba(sc.transform(X[va]))[:, 1]
print(np.mean((oof > 0.5) == y))
"""


def _cells(*sources: str) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": s} for s in sources]}


# an exercise notebook: a function stub left for the student (a def with only a comment), then later cells
EXERCISE_STUB_CELLS = (
    "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.preprocessing import StandardScaler\n",
    'table = pd.read_csv("scans.csv")\nX, y = table.drop(columns="label").values, table["label"].values\n',
    "def evaluate(X, y):\n    # write your answer here\n",
    "X = StandardScaler().fit_transform(X)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n",
    "clf = LogisticRegression().fit(X_tr, y_tr)\nprint(clf.score(X_te, y_te))\n",
)

# the same stub as a class left empty
EXERCISE_STUB_CLASS = (EXERCISE_STUB_CELLS[0], EXERCISE_STUB_CELLS[1], "class Answer:\n    # your code\n",
                       *EXERCISE_STUB_CELLS[3:])

# the stub filled in, and the scaler fitted on the training part: clean
EXERCISE_DONE_CLEAN = (
    EXERCISE_STUB_CELLS[0], EXERCISE_STUB_CELLS[1], "def evaluate(X, y):\n    return None\n",
    "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\nsc = StandardScaler().fit(X_tr)\n",
    "clf = LogisticRegression().fit(sc.transform(X_tr), y_tr)\nprint(clf.score(sc.transform(X_te), y_te))\n",
)


def _notebook_alarms(tmp_path: Path, cells: tuple[str, ...]) -> tuple[set[tuple[str, int, int]], list]:
    path = tmp_path / "exercise.ipynb"
    path.write_text(json.dumps(_cells(*cells)))
    report, smap = analyze_file(str(path), alone=True)
    found = {(f.kind, f.location.get("index"), f.location.get("line")) for f in report.findings
             if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}
    return found, [f for f in report.findings if f.kind == "code_not_parsed"]


def test_a_lag_matrix_filled_from_a_range_scaled_series_is_split_after_the_fit(tmp_path: Path) -> None:
    assert ("fit_before_split", 7) in alarms(tmp_path, LAGS_FROM_A_SCALED_SERIES)


def test_a_lag_matrix_from_a_series_scaled_on_its_first_half_is_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, LAGS_SCALED_ON_THE_FIRST_HALF) == set()


def test_columns_filled_into_an_empty_matrix_then_scaled_on_train_are_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, COLUMNS_FILLED_THEN_SCALED_ON_TRAIN) == set()


def test_a_column_standardised_over_every_row_reaches_the_filled_matrix(tmp_path: Path) -> None:
    assert ("fit_before_split", 9) in alarms(tmp_path, COLUMNS_STANDARDISED_ON_ALL_ROWS)


def test_out_of_fold_predictions_written_by_rows_stay_clean(tmp_path: Path) -> None:
    assert alarms(tmp_path, OUT_OF_FOLD_ROWS) == set()


def test_an_exercise_stub_without_a_body_skips_its_own_cell_not_the_notebook(tmp_path: Path) -> None:
    found, skipped = _notebook_alarms(tmp_path, EXERCISE_STUB_CELLS)
    assert ("fit_before_split", 4, 1) in found
    assert [f.location.get("index") for f in skipped] == [3]


def test_an_empty_class_stub_skips_its_own_cell(tmp_path: Path) -> None:
    found, skipped = _notebook_alarms(tmp_path, EXERCISE_STUB_CLASS)
    assert ("fit_before_split", 4, 1) in found
    assert [f.location.get("index") for f in skipped] == [3]


def test_a_finished_exercise_with_the_scaler_on_train_is_clean(tmp_path: Path) -> None:
    found, skipped = _notebook_alarms(tmp_path, EXERCISE_DONE_CLEAN)
    assert found == set() and skipped == []


# an hour of day encoded on the circle, its period read as the column's largest value, before the split
HOUR_ON_THE_CIRCLE = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import train_test_split

table = pd.read_csv("load.csv")
hour = table["hour"].values
table["hour_sin"] = np.sin(2 * np.pi * hour / hour.max())
table["hour_cos"] = np.cos(2 * np.pi * hour / hour.max())
X_tr, X_te, y_tr, y_te = train_test_split(table[["hour_sin", "hour_cos"]], table["load"], random_state=2)
print(Ridge().fit(X_tr, y_tr).score(X_te, y_te))
"""

# the same sine, then the result divided by a maximum over every row: a scale of the rows, before the split
SINE_SCALED_BY_ITS_MAXIMUM = HOUR_ON_THE_CIRCLE.replace(
    'table["hour_sin"] = np.sin(2 * np.pi * hour / hour.max())',
    'table["hour_sin"] = np.sin(hour) / table["load"].max()')


def test_a_cyclic_encoding_by_the_largest_hour_is_no_fit(tmp_path: Path) -> None:
    assert alarms(tmp_path, HOUR_ON_THE_CIRCLE) == set()


def test_a_maximum_applied_to_the_sine_output_still_counts(tmp_path: Path) -> None:
    assert ("fit_before_split", 8) in alarms(tmp_path, SINE_SCALED_BY_ITS_MAXIMUM)
