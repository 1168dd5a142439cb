"""The static leakage analysis on the kinds a held-out wave of forecasting and finance projects showed (issue 17,
wave 90: price-direction classifiers, load forecasting, sales forecasting), in both directions:

* a helper that scores every cut-off against the labels it is given, collects the scores in a list and returns the
  cut-off at the list's ``argmax`` chooses on the rows it is handed: handed a cross-validation fold's test labels
  (``y.iloc[test_idx]``, or gathered in a frame) it is found; handed the training fold's labels, or only
  collecting the scores for a plot, it is not (helperloops.py, heldlabels.py);
* a helper module reached through ``sys.path += ['..']`` is part of the script's program (projimports.py);
* gaps in the target filled by an imputer fitted on every row, the filled target then the split's labels, is a fit
  before the split; the imputer fitted on the training labels, a mean that only defines an up/down label, or an
  encoder of the class names are not (labelfills.py);
* the training and test parts of one split stacked back in order are the whole series again: a walk-forward or
  ``TimeSeriesSplit`` over them trains no model on its test rows, while a model fitted on the re-joined rows and
  scored on the test part is still trained on it (rowunions.py);
* a helper that fits under ``if train:`` and returns, transforming only after it, called with ``train=False`` for
  the held-out part, fits on the training part alone; called with ``train=True`` on the held-out part it does not
  (fitswitch.py);
* a difference of the target only drawn (``ax.plot(s.diff())``, ``plot_acf(s.diff())``) makes no time-ordered
  feature: a cross-validated learning curve over calendar columns is silent; a difference stored as a feature is
  not (drawnonly.py);
* readings kept by a validity flag (``valid_temp = raw[raw["temp_valid"]]``) are the readings that passed a check,
  not a validation part: their hourly mean is silent; rows whose fold column says ``"valid"`` stay a validation
  part (masks.py).

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

#: an hourly load whose zero hours are gaps
LOAD = """\
        from sklearn.impute import SimpleImputer
        from sklearn.preprocessing import LabelEncoder
        load = table["load"].replace(0, np.nan).to_numpy().reshape(-1, 1)
        hours = table[["hour", "temp"]]
"""

#: the last month held out in time order, then both parts put back together in order
REJOIN = """\
        from sklearn.metrics import r2_score
        X_early, X_late, y_early, y_late = train_test_split(X, y, test_size=0.1, shuffle=False)
        print(X_early.shape, X_late.shape)
        series = np.concatenate((X_early, X_late), axis=0)
        labels = np.concatenate((y_early, y_late), axis=0)
"""

#: a helper that fits only when told it is given training rows, and returns early from that branch
SWITCH = """\
        from sklearn.preprocessing import OrdinalEncoder

        class Codes:
            def __init__(self):
                self.enc = OrdinalEncoder()

            def encode(self, frame, train):
                if train:
                    return self.enc.fit_transform(frame[["store", "dept"]])
                return self.enc.transform(frame[["store", "dept"]])

        codes = Codes()
"""

#: calendar columns of an hourly load, and the plots of its differences
DRAWN = """\
        import matplotlib.pyplot as plt
        from sklearn.model_selection import learning_curve
        from statsmodels.graphics.tsaplots import plot_acf
        calendar = table[["hour", "weekday", "month"]]
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
    # the gaps of the load filled with the mean load of every hour, test hours included, before the time cut
    "target_gaps_filled_by_an_imputer_over_every_row": (LOAD + """\
        filler = SimpleImputer(strategy="mean").fit(load)
        demand = filler.transform(load).ravel()
        h_tr, h_te, d_tr, d_te = train_test_split(hours, demand, test_size=0.2, shuffle=False)
        print(Ridge().fit(h_tr, d_tr).score(h_te, d_te))
""", [("fit_before_split", 5)]),
    # the target scaled with the statistics of every row, then cut in time order and scored in that scale
    "target_scaled_over_every_row_before_the_cut": (LOAD + """\
        demand = StandardScaler().fit_transform(np.nan_to_num(load)).ravel()
        h_tr, h_te, d_tr, d_te = train_test_split(hours, demand, test_size=0.2, shuffle=False)
        print(Ridge().fit(h_tr, d_tr).score(h_te, d_te))
""", [("fit_before_split", 5)]),
}

HEALTHY = {
    # the imputer learns the mean of the training hours only, and fills both parts with it
    "target_gaps_filled_by_an_imputer_over_the_training_rows": (LOAD + """\
        h_tr, h_te, l_tr, l_te = train_test_split(hours, load, test_size=0.2, shuffle=False)
        filler = SimpleImputer(strategy="mean").fit(l_tr)
        d_tr, d_te = filler.transform(l_tr).ravel(), filler.transform(l_te).ravel()
        print(Ridge().fit(h_tr, d_tr).score(h_te, d_te))
"""),
    # the mean load over every hour only draws the line between busy and quiet hours: it defines the label
    "mean_of_every_row_as_a_label_threshold": (LOAD + """\
        busy = (table["load"] > table["load"].mean()).astype(int)
        h_tr, h_te, b_tr, b_te = train_test_split(hours, busy, test_size=0.2, shuffle=False)
        print(LogisticRegression().fit(h_tr, b_tr).score(h_te, b_te))
"""),
    # the class names of the label coded over every row
    "label_names_coded_over_every_row": (LOAD + """\
        level = LabelEncoder().fit_transform(table["band"])
        h_tr, h_te, v_tr, v_te = train_test_split(hours, level, test_size=0.2, shuffle=False)
        print(LogisticRegression().fit(h_tr, v_tr).score(h_te, v_te))
"""),
    # the encoder fitted under the flag, the held-out part only transformed after the early return
    "encoder_fitted_under_a_train_flag_with_an_early_return": (SWITCH + """\
        X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.2, shuffle=False)
        model = Ridge().fit(codes.encode(X_a, train=True), y_a)
        print(model.score(codes.encode(X_b, train=False), y_b))
"""),
    # the first differences of the load only drawn; the learning curve reads calendar columns
    "differences_only_drawn_beside_a_learning_curve": (DRAWN + """\
        fig, axes = plt.subplots(1, 2)
        axes[0].plot(pd.DataFrame(table["load"]).diff())
        plot_acf(pd.DataFrame(table["load"]).diff().dropna(), ax=axes[1])
        table["load"].diff().plot()
        sizes, fit_scores, held_scores = learning_curve(Ridge(), calendar, table["load"], cv=5)
"""),
    # implausible readings flagged, the others averaged per hour and saved for the forecaster
    "readings_kept_by_a_validity_flag_averaged_per_hour": ("""\
        raw = pd.read_csv("weather_raw.csv")
        raw["temp_valid"] = raw["temp"] < 45
        valid_temp = raw[raw["temp_valid"]][["hour", "temp"]]
        hourly = valid_temp.groupby("hour", as_index=False).agg({"temp": "mean"})
        hourly.to_csv("weather_hourly.csv")
"""),
    # a walk-forward evaluation over the re-joined series: each fold trains on the months before its window
    "rejoined_series_walked_forward": (REJOIN + """\
        for past, ahead in TimeSeriesSplit(n_splits=4).split(series):
            model = Ridge().fit(series[past], labels[past])
            print(r2_score(labels[past], model.predict(series[past])), r2_score(labels[ahead], model.predict(series[ahead])))
"""),
    # the same with windows counted by hand
    "rejoined_series_walked_forward_by_hand": (REJOIN + """\
        week = 168
        past = np.arange(0, 4 * week)
        ahead = np.arange(4 * week, 5 * week)
        for k in range(3):
            model = Ridge().fit(series[past], labels[past])
            print(r2_score(labels[past], model.predict(series[past])), r2_score(labels[ahead], model.predict(series[ahead])))
            past, ahead = past + week, ahead + week
"""),
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


def test_rejoined_series_fitted_whole_is_still_trained_on_its_test_part(tmp_path):
    """The split undone is the whole series: a model fitted on all of it and scored on the held-out month was trained
    on that month (kept as it was before the re-join was read as the rows before the split)."""
    assert alarms(tmp_path, REJOIN + """\
        model = Ridge().fit(series, labels)
        print(r2_score(y_late, model.predict(X_late)))
""") == [("trained_on_test", 6)]


def test_encoder_switched_on_for_the_held_out_part_is_still_fitted_on_it(tmp_path):
    """The same switch told ``train=True`` for the held-out part fits on it (kept as it was)."""
    assert alarms(tmp_path, SWITCH + """\
        X_a, X_b, y_a, y_b = train_test_split(X, y, test_size=0.2, shuffle=False)
        model = Ridge().fit(codes.encode(X_a, train=True), y_a)
        print(model.score(codes.encode(X_b, train=True), y_b))
""") == [("fit_on_test", 9)]


def test_differences_stored_as_a_feature_are_still_time_ordered(tmp_path):
    """A difference that becomes a column of the cross-validated table keeps the rows a series (kept as it was)."""
    assert alarms(tmp_path, DRAWN + """\
        calendar = calendar.assign(step=table["load"].diff().fillna(0))
        axes = plt.subplots(1, 2)[1]
        axes[0].plot(calendar["step"])
        sizes, fit_scores, held_scores = learning_curve(Ridge(), calendar, table["load"], cv=5)
""") == [("shuffled_time_split", 8)]


def test_rows_of_a_validation_fold_are_still_held_out(tmp_path):
    """Rows whose fold column is compared with "valid" are a validation part: a scaler fitted on them is found."""
    assert alarms(tmp_path, """\
        X_valid = X[table["fold"] == "valid"]
        X_fit = X[table["fold"] == "train"]
        scaler = StandardScaler().fit(X_valid)
        model = Ridge().fit(scaler.transform(X_fit), y[table["fold"] == "train"])
        print(model.score(scaler.transform(X_valid), y[table["fold"] == "valid"]))
""") == [("fit_on_test", 3)]


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
