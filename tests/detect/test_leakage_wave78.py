"""The static leakage analysis on the kind a held-out wave of end-to-end template projects showed (issue 17, wave 78:
a helper fits every model of a dictionary, scores each on the test arrays into a report, and the trainer keeps the
model with the best report entry), in both directions: the choice found at the test prediction, the healthy
look-alikes silent. Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import alarms

#: a helper that tries each candidate on the rows it is handed and returns a dictionary of scores
HELPER = """\
        from sklearn.metrics import mean_absolute_error
        def rank_regressors(X_train, y_train, X_test, y_test, candidates):
            scores = {}
            for label, regressor in candidates.items():
                regressor.fit(X_train, y_train)
                guess = regressor.predict(X_test)
                scores[label] = mean_absolute_error(y_test, guess)
            return scores
        cut = int(len(X) * 0.8)
        X_train, X_test, y_train, y_test = X[:cut], X[cut:], y[:cut], y[cut:]
        candidates = {"ridge": Ridge(), "logit": LogisticRegression()}
"""

LEAKS = {
    # the helper's report of test errors decides which regressor is kept
    "helper_report_of_test_scores_chosen_by_its_caller": (HELPER + """\
        board = rank_regressors(X_train, y_train, X_test, y_test, candidates)
        winner = min(board, key=board.get)
        print(winner, board[winner])
""", [("tuned_on_test", 6)]),
    # the loop in the trainer itself, its metrics copied to a second table that is sorted for the best
    "report_copied_then_sorted_for_the_best": ("""\
        from sklearn.metrics import r2_score
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=3)
        options = {"ridge": Ridge(), "logit": LogisticRegression()}
        metrics = {}
        for i in range(len(options)):
            est = list(options.values())[i]
            est.fit(X_train, y_train)
            estimate = est.predict(X_test)
            metrics[list(options)[i]] = {"r2": r2_score(y_test, estimate)}
        only_r2 = {}
        for key in metrics:
            only_r2[key] = metrics[key]["r2"]
        kept = sorted(only_r2.items(), key=lambda kv: kv[1], reverse=True)[0][0]
""", [("tuned_on_test", 8)]),
}

HEALTHY = {
    # the same helper handed a validation part: choosing there is the intended practice
    "helper_report_on_validation_rows_chosen": (HELPER + """\
        X_fit, X_val, y_fit, y_val = X_train[:500], X_train[500:], y_train[:500], y_train[500:]
        board = rank_regressors(X_fit, y_fit, X_val, y_val, candidates)
        winner = min(board, key=board.get)
        print(candidates[winner].fit(X_train, y_train).score(X_test, y_test))
"""),
    # every test score printed, none kept
    "helper_report_only_printed": (HELPER + """\
        board = rank_regressors(X_train, y_train, X_test, y_test, candidates)
        for label in board:
            print(label, board[label])
"""),
    # a simulation: fresh training draws scored on one test set, the errors kept in array slots to decompose
    # into bias and variance; the largest error only sets a plot's axis, nothing is chosen
    "bias_variance_simulation_in_array_slots": ("""\
        import numpy as np
        rng = np.random.default_rng(0)
        X_test = rng.uniform(-1, 1, size=(40, 1))
        y_test = 2 * X_test[:, 0]
        errors = np.zeros((40, 200, 2))
        for i in range(200):
            X_train = rng.uniform(-1, 1, size=(20, 1))
            y_train = 2 * X_train[:, 0] + rng.normal(size=20)
            near = Ridge(alpha=0.1).fit(X_train, y_train)
            far = Ridge(alpha=100.0).fit(X_train, y_train)
            errors[:, i, 0] = (y_test - near.predict(X_test)) ** 2
            errors[:, i, 1] = (y_test - far.predict(X_test)) ** 2
        top = np.max(errors.mean(axis=1))
        print(errors.mean(axis=(0, 1)), top)
"""),
    # the number of mixture components chosen by its mean score over cross-validation folds (the folds' held-out
    # parts are named test): model selection by cross-validation, the intended practice
    "components_chosen_by_cross_validation_folds": ("""\
        import numpy as np
        from sklearn.mixture import GaussianMixture
        from sklearn.model_selection import KFold
        folds = KFold(n_splits=3, shuffle=True, random_state=0)
        sizes = [2, 3, 4]
        scores = np.zeros((len(sizes), 3))
        for m, size in enumerate(sizes):
            for k, (train_index, test_index) in enumerate(folds.split(X)):
                x_train, x_test = X[train_index], X[test_index]
                mixture = GaussianMixture(n_components=size).fit(x_train)
                scores[m, k] = mixture.score(x_test)
        best = sizes[int(np.argmax(scores.mean(axis=1)))]
        print(best)
"""),
    # one model, its test score reported once
    "single_model_scored_once": ("""\
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=3)
        model = Ridge().fit(X_train, y_train)
        print(model.score(X_test, y_test))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_78_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_78_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


UTILS = """\
from sklearn.metrics import accuracy_score


def score_each(models, X_train, y_train, X_test, y_test):
    board = {}
    for name, model in models.items():
        model.fit(X_train, y_train)
        board[name] = accuracy_score(y_test, model.predict(X_test))
    return board
"""

TRAINER = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier
from helpers import score_each

train, test = np.load("train.npy"), np.load("test.npy")
models = {"logit": LogisticRegression(), "tree": DecisionTreeClassifier()}
board = score_each(models, train[:, :-1], train[:, -1], test[:, :-1], test[:, -1])
{use}
"""


def _trainer(use):
    return TRAINER.replace("{use}", use)


def _module_alarms(path):
    report, _ = analyze_file(str(path))
    return [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING]


def test_wave_78_report_chosen_in_another_module_found_in_the_helper(tmp_path):
    (tmp_path / "helpers.py").write_text(UTILS)
    (tmp_path / "trainer.py").write_text(_trainer("best = max(sorted(board.values()))\nprint(best)"))
    assert ("tuned_on_test", 8) in _module_alarms(tmp_path / "helpers.py")


def test_wave_78_report_only_logged_in_another_module_silent(tmp_path):
    (tmp_path / "helpers.py").write_text(UTILS)
    (tmp_path / "trainer.py").write_text(_trainer("print(board)"))
    assert _module_alarms(tmp_path / "helpers.py") == []


def test_wave_78_helper_scored_on_validation_rows_silent(tmp_path):
    (tmp_path / "helpers.py").write_text(textwrap.dedent(UTILS).replace("X_test", "X_val").replace("y_test", "y_val"))
    (tmp_path / "trainer.py").write_text(_trainer("best = max(sorted(board.values()))"))
    assert _module_alarms(tmp_path / "helpers.py") == []
