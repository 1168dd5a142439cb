"""The static leakage analysis on the kinds a held-out wave of forecasting and finance projects showed (issue 17,
wave 90: price-direction classifiers, load forecasting, sales forecasting), in both directions:

* a helper that scores every cut-off against the labels it is given, collects the scores in a list and returns the
  cut-off at the list's ``argmax`` chooses on the rows it is handed: handed a cross-validation fold's test labels
  (``y.iloc[test_idx]``, or gathered in a frame) it is found; handed the training fold's labels, or only
  collecting the scores for a plot, it is not (helperloops.py);
* a helper module reached through ``sys.path += ['..']`` is part of the script's program (projimports.py).

Every example is written for this test."""

from __future__ import annotations

import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import alarms

#: a cut-off helper that keeps the best balanced accuracy by collecting every candidate's score in a list
PICKER = """\
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.metrics import accuracy_score

        def pick_cut(truth, proba):
            grid = np.linspace(0.05, 0.95, 19)
            balanced = []
            for c in grid:
                said = proba >= c
                hit_up = np.sum(said & (truth == 1)) / max(np.sum(truth == 1), 1)
                hit_down = np.sum(~said & (truth == 0)) / max(np.sum(truth == 0), 1)
                balanced.append((hit_up + hit_down) / 2)
            return grid[np.argmax(balanced)]

        up = (table["ret"].shift(-1) > 0).astype(int)
        feats = table[["ret", "vol"]]
        forest = RandomForestClassifier(n_estimators=50, random_state=0)
"""

#: the same choice, its scores made by a profit helper that takes the labels among other arguments
PROFIT = """\
        from sklearn.linear_model import LogisticRegression

        def gain(moves, signal, truth, fee):
            return float(np.sum(moves[signal == 1]) - fee * np.sum(signal)), float(np.mean(signal == truth))

        def richest_cut(moves, proba, truth, fee=0.001):
            grid = np.arange(0, 1.01, 0.05)
            gains = []
            for c in grid:
                signal = (proba >= c).astype(int)
                earned = gain(moves, signal, truth, fee)
                gains.append(earned[0])
            return grid[np.argmax(gains)]

        moves = table["ret"]
        up = (moves.shift(-1) > 0).astype(int)
        feats = table[["ret", "vol"]]
"""

LEAKS = {
    # each fold's cut-off is the best of nineteen on that fold's own labels, then that fold is scored at it
    "cut_off_list_argmax_handed_a_folds_test_labels": (PICKER + """\
        for train_idx, test_idx in TimeSeriesSplit(n_splits=4).split(feats):
            forest.fit(feats.iloc[train_idx], up.iloc[train_idx])
            proba = forest.predict_proba(feats.iloc[test_idx])[:, 1]
            cut = pick_cut(up.iloc[test_idx], proba)
            print(accuracy_score(up.iloc[test_idx], proba >= cut))
""", [("tuned_on_test", 20)]),
    # the profit helper handed the fold's labels gathered in a frame with another column
    "profit_cut_off_handed_the_folds_labels_in_a_frame": (PROFIT + """\
        for fit_rows, held_rows in TimeSeriesSplit(n_splits=3).split(feats):
            model = LogisticRegression().fit(feats.iloc[fit_rows], up.iloc[fit_rows])
            proba = model.predict_proba(feats.iloc[held_rows])[:, 1]
            truth = pd.DataFrame({"up": up.iloc[held_rows], "flat": 1 - up.iloc[held_rows]})
            cut = richest_cut(moves.iloc[held_rows], proba, truth)
            print(gain(moves.iloc[held_rows], (proba >= cut).astype(int), up.iloc[held_rows], 0.001))
""", [("tuned_on_test", 22)]),
}

HEALTHY = {
    # the cut-off chosen on the training fold's own predictions, the test fold scored once at it
    "cut_off_chosen_on_the_training_fold": (PICKER + """\
        for train_idx, test_idx in TimeSeriesSplit(n_splits=4).split(feats):
            forest.fit(feats.iloc[train_idx], up.iloc[train_idx])
            cut = pick_cut(up.iloc[train_idx], forest.predict_proba(feats.iloc[train_idx])[:, 1])
            proba = forest.predict_proba(feats.iloc[test_idx])[:, 1]
            print(accuracy_score(up.iloc[test_idx], proba >= cut))
"""),
    # every cut-off's score on the test fold only collected for a plot: nothing is chosen
    "cut_off_scores_only_plotted": (PROFIT + """\
        def gain_curve(moves, proba, truth):
            gains = []
            for c in np.arange(0, 1.01, 0.05):
                gains.append(gain(moves, (proba >= c).astype(int), truth, 0.001)[0])
            return gains

        for fit_rows, held_rows in TimeSeriesSplit(n_splits=3).split(feats):
            model = LogisticRegression().fit(feats.iloc[fit_rows], up.iloc[fit_rows])
            proba = model.predict_proba(feats.iloc[held_rows])[:, 1]
            plt.plot(gain_curve(moves.iloc[held_rows], proba, up.iloc[held_rows]))
"""),
    # the validation fold's labels chose the cut-off
    "cut_off_handed_the_validation_fold": (PICKER + """\
        for train_idx, val_idx in TimeSeriesSplit(n_splits=4).split(feats):
            forest.fit(feats.iloc[train_idx], up.iloc[train_idx])
            proba = forest.predict_proba(feats.iloc[val_idx])[:, 1]
            print(pick_cut(up.iloc[val_idx], proba))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_90_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_90_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


#: a helper module one folder above the script that uses it
TOOLS = """\
import numpy as np


def pick_cut(truth, proba):
    grid = np.linspace(0.1, 0.9, 9)
    hits = []
    for c in grid:
        hits.append(np.mean((proba >= c) == truth))
    return grid[np.argmax(hits)]
"""

RUN = """\
import sys
sys.path += ['..']

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import TimeSeriesSplit
from tools import pick_cut

table = pd.read_csv("quotes.csv")
X, y = table[["ret", "vol"]], table["up"]
for a, b in TimeSeriesSplit(n_splits=3).split(X):
    proba = LogisticRegression().fit(X.iloc[a], y.iloc[a]).predict_proba(X.iloc[b])[:, 1]
    cut = pick_cut(y.iloc[{rows}], {scores})
    print(accuracy_score(y.iloc[b], proba >= cut))
"""


@pytest.mark.parametrize(("rows", "scores", "expected"), [
    ("b", "proba", [("tuned_on_test", 14)]),  # the test fold chose the cut-off
    ("a", "LogisticRegression().fit(X.iloc[a], y.iloc[a]).predict_proba(X.iloc[a])[:, 1]", []),  # the training fold
])
def test_helper_module_reached_through_an_added_path_list(tmp_path, rows, scores, expected):
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "jobs").mkdir()
    script = tmp_path / "jobs" / "run.py"
    script.write_text(textwrap.dedent(RUN).replace("{rows}", rows).replace("{scores}", scores))
    report, _ = analyze_file(str(script))
    assert [(f.kind, f.location["line"]) for f in report.findings if f.severity >= Severity.WARNING and
            f.location.get("file", str(script)).endswith("run.py")] == expected
