"""The static leakage analysis on the kind breadth wave 47 of public code showed most (book and library notebooks
that refit a final model on every row and then only SHOW its predictions for rows once held out), in both
directions. Every example is written for this test."""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.leakage_source import alarms


def _notebook_alarms(tmp_path: Path, *cells: str) -> set[tuple[str, int | None, int]]:
    """``(kind, cell, line)`` of the warning-or-worse findings of a notebook made of ``cells`` (code only)."""
    path = tmp_path / "demo.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]}))
    report, _ = analyze_file(str(path), alone=True)
    return {(f.kind, f.location.get("index"), f.location.get("line")) for f in report.findings
            if f.severity >= Severity.WARNING and f.kind != "analysis_incomplete"}

# a held-out part is scored honestly first; then the "deployment" model is refitted on every row and its
# predictions for a few of the once-held-out rows are only displayed: nothing scores them
DEPLOY_SETUP = """\
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error

flats = pd.read_csv("flats.csv")
X, y = flats.drop(columns="rent"), flats["rent"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=3)
chosen = Pipeline([("scale", StandardScaler()), ("ridge", Ridge(alpha=2.0))])
chosen.fit(X_train, y_train)
print(mean_absolute_error(y_test, chosen.predict(X_test)))
"""
DEPLOY_FIT = """\
final = Pipeline([("scale", StandardScaler()), ("ridge", Ridge(alpha=2.0))])
final.fit(X, y)
"""
DEPLOY_SHOWN = [
    "new_rows = X_test[:5]\nnp.round(final.predict(new_rows))\n",  # a cell's last value is displayed
    "print(np.round(final.predict(X_test))[:3])\n",
    "shown = final.predict(X_test[:8])\nfor row, guess in zip(X_test[:8].index, shown):\n    print(row, guess)\n",
]
DEPLOY_FIT_AT = ("fit_before_split", 2, 2)  # cell 2, line 2 (the refit on every row)

# the same refit on every row, then its predictions for the held-out rows go into a metric: a leak
DEPLOY_SCORED = "guesses = final.predict(X_test)\nprint('MAE of the final model:', mean_absolute_error(y_test, guesses))\n"
# scored through a comparison written by hand (the predictions compared with the labels)
DEPLOY_COMPARED = "np.mean(np.abs(final.predict(X_test) - y_test) < 50)\n"
# in a script a bare prediction statement shows nothing: a value thrown away is a use the analysis cannot follow
DEPLOY_SCRIPT = DEPLOY_SETUP + DEPLOY_FIT + "final.predict(X_test)\n"

# a search fitted on every pair, then a few predictions of rows it was trained on printed as examples
SEARCH_EXAMPLES_SHOWN = """\
import pandas as pd
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.svm import SVC

notes = pd.read_csv("notes.csv")
X, y = notes.drop(columns="genuine"), notes["genuine"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
search = GridSearchCV(SVC(), {"C": [0.1, 1.0, 10.0]})
search.fit(X, y)
best = search.best_estimator_
for guess in best.predict(X_test[:10]):
    print(guess)
"""
SEARCH_FIT_LINE = 9

# the same search, then scored on the held-out part it was trained on: trained_on_test
SEARCH_THEN_SCORED = SEARCH_EXAMPLES_SHOWN + """\
print(best.score(X_test, y_test))
"""

# the predictions are shown first, then the same ones go into a confusion matrix: still a leak
SEARCH_SHOWN_THEN_SCORED = SEARCH_EXAMPLES_SHOWN + """\
from sklearn.metrics import confusion_matrix
predicted = best.predict(X_test)
print(predicted[:5])
print(confusion_matrix(y_test, predicted))
"""


def test_a_final_refit_whose_held_out_predictions_are_only_shown_is_not_an_alarm(tmp_path: Path) -> None:
    found = _notebook_alarms(tmp_path, DEPLOY_SETUP, DEPLOY_FIT, *DEPLOY_SHOWN)
    assert not any(cell == 2 for _, cell, _ in found), found


def test_a_final_refit_whose_held_out_predictions_are_scored_is_still_a_leak(tmp_path: Path) -> None:
    assert DEPLOY_FIT_AT in _notebook_alarms(tmp_path, DEPLOY_SETUP, DEPLOY_FIT, *DEPLOY_SHOWN, DEPLOY_SCORED)
    assert DEPLOY_FIT_AT in _notebook_alarms(tmp_path, DEPLOY_SETUP, DEPLOY_FIT, DEPLOY_COMPARED)
    assert ("fit_before_split", 16) in alarms(tmp_path, DEPLOY_SCRIPT)


def test_a_search_whose_example_predictions_are_only_printed_is_not_an_alarm(tmp_path: Path) -> None:
    found = alarms(tmp_path, SEARCH_EXAMPLES_SHOWN)
    assert not any(line == SEARCH_FIT_LINE for _, line in found), found
    printed = SEARCH_EXAMPLES_SHOWN.replace("for guess in best.predict(X_test[:10]):\n    print(guess)\n",
                                            "print(list(best.predict(X_test[:10]))[:5])\n")
    assert printed != SEARCH_EXAMPLES_SHOWN
    found = alarms(tmp_path, printed)
    assert not any(line == SEARCH_FIT_LINE for _, line in found), found


def test_a_search_scored_on_rows_it_was_trained_on_is_still_trained_on_test(tmp_path: Path) -> None:
    assert ("trained_on_test", SEARCH_FIT_LINE) in alarms(tmp_path, SEARCH_THEN_SCORED)
    assert ("trained_on_test", SEARCH_FIT_LINE) in alarms(tmp_path, SEARCH_SHOWN_THEN_SCORED)


# the training rows generated once and bound to the test names as well (a timing demo): the eval set IS the
# training rows, nothing is held out
TRAINING_ROWS_UNDER_TEST_NAMES = """\
from catboost import CatBoostRegressor
from sklearn.datasets import make_regression

X_train, y_train = make_regression(n_samples=5000, n_features=40, noise=1.0, random_state=0)
X_test, y_test = X_train, y_train
model = CatBoostRegressor(iterations=100, learning_rate=0.03)
model.fit(X_train, y_train, eval_set=(X_test, y_test), verbose=10)
print(model.get_best_score())
"""
# the same look with a second, independent draw under the test names: held out, early stopping on it is a leak
SECOND_DRAW_UNDER_TEST_NAMES = TRAINING_ROWS_UNDER_TEST_NAMES.replace(
    "X_test, y_test = X_train, y_train",
    "X_test, y_test = make_regression(n_samples=1000, n_features=40, noise=1.0, random_state=1)")
# rows of no training name bound to the test names: still held out by their name
OTHER_ROWS_UNDER_TEST_NAMES = TRAINING_ROWS_UNDER_TEST_NAMES.replace(
    "X_test, y_test = X_train, y_train",
    "X_holdout, y_holdout = make_regression(n_samples=1000, n_features=40, noise=1.0, random_state=1)\n"
    "X_test, y_test = X_holdout, y_holdout")


def test_training_rows_bound_to_test_names_are_not_held_out(tmp_path: Path) -> None:
    assert alarms(tmp_path, TRAINING_ROWS_UNDER_TEST_NAMES) == set()


def test_an_eval_set_drawn_apart_under_test_names_still_chooses_the_model(tmp_path: Path) -> None:
    assert ("tuned_on_test", 7) in alarms(tmp_path, SECOND_DRAW_UNDER_TEST_NAMES)
    assert ("tuned_on_test", 8) in alarms(tmp_path, OTHER_ROWS_UNDER_TEST_NAMES)
