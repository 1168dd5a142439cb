"""The static leakage analysis on the kinds a held-out wave of Kaggle and course code showed (issue 17, wave 67: a
statistic of the held-out rows taken by a lambda inside a grouped ``agg``; a notebook whose steps live in the
project's own modules, reached through ``sys.path``), each in both directions: the leak found at its line, the
healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from faultlib.detect.data.leakage import analyze_file
from faultlib.findings import Severity
from tests.detect.test_leakage_kinds import alarms

# ----------------------------------------------------------------------------- a lambda statistic inside agg

#: the most common colour per maker, from the competition's unlabelled test rows, fills the labelled rows' gaps
MODES_OF_HELD_OUT_ROWS = """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        usual = test.groupby(["maker", "size"])["colour"].agg(lambda s: s.mode()[0] if len(s.mode()) else None)
        train["colour"] = train["colour"].fillna(train["maker"].map(usual.to_dict()))
        model = Ridge().fit(train[["colour", "size"]], train["price"])
        print(model.predict(test[["colour", "size"]]))
        """

#: the same fill with the labelled rows' own modes, applied to the test rows; no cross-validation
MODES_OF_TRAINING_ROWS = """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        usual = train.groupby(["maker", "size"])["colour"].agg(lambda s: s.mode()[0] if len(s.mode()) else None)
        test["colour"] = test["colour"].fillna(test["maker"].map(usual.to_dict()))
        model = Ridge().fit(train[["colour", "size"]], train["price"])
        print(model.predict(test[["colour", "size"]]))
        """

#: each group's first row, no statistic: a lambda that only picks
FIRST_OF_GROUP = """\
        train = pd.read_csv("train.csv")
        test = pd.read_csv("test.csv")
        first = test.groupby("maker")["colour"].agg(lambda s: s.iloc[0])
        train["colour"] = train["colour"].fillna(train["maker"].map(first.to_dict()))
        model = Ridge().fit(train[["colour", "size"]], train["price"])
        print(model.predict(test[["colour", "size"]]))
        """


def test_a_lambda_mode_of_held_out_rows_in_agg_is_a_fit_on_them(tmp_path):
    assert alarms(tmp_path, MODES_OF_HELD_OUT_ROWS) == [("fit_on_test", 3)]


def test_the_training_rows_modes_filling_the_held_out_rows_stay_silent(tmp_path):
    assert alarms(tmp_path, MODES_OF_TRAINING_ROWS) == []


def test_a_lambda_that_picks_a_row_is_no_statistic(tmp_path):
    assert alarms(tmp_path, FIRST_OF_GROUP) == []


# ----------------------------------------------------------------------------- a notebook's own modules on sys.path

PREPARE = """\
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def cut(table, target):
    return train_test_split(table.drop(columns=[target]), table[target], test_size=0.25, random_state=1)


def standardise(train_part, test_part):
    scaler = StandardScaler()
    return scaler.fit_transform(train_part), scaler.transform(test_part)
"""

EVALUATE = """\
from sklearn.model_selection import cross_val_score


def folds_score(model, rows, labels):
    return cross_val_score(model, rows, labels, cv=5).mean()
"""

SETUP_CELL = """\
import sys
import pandas as pd
from sklearn.linear_model import LogisticRegression
sys.path.append('../lib')
from prepare import cut, standardise
from evaluate import folds_score
"""

LOAD_CELL = """\
patients = pd.read_csv("../data/patients.csv")
X_train, X_test, y_train, y_test = cut(patients, "sick")
X_train_s, X_test_s = standardise(X_train, X_test)
"""


def _project(root: Path, scored: str) -> Path:
    (root / "lib").mkdir()
    (root / "lib" / "prepare.py").write_text(PREPARE)
    (root / "lib" / "evaluate.py").write_text(EVALUATE)
    (root / "notebooks").mkdir()
    notebook = root / "notebooks" / "model.ipynb"
    cells = [SETUP_CELL, LOAD_CELL, f"print(folds_score(LogisticRegression(), {scored}, y_train))\n"]
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                               "execution_count": None, "source": textwrap.dedent(c)} for c in cells],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return notebook


def _findings(notebook: Path) -> list[tuple[str, str, int]]:
    report, _ = analyze_file(str(notebook))
    return [(f.kind, Path(f.location["file"]).name, f.location["line"]) for f in report.findings
            if f.severity >= Severity.WARNING]


def test_a_scaler_in_a_module_on_sys_path_then_cv_in_another_is_found_in_the_module(tmp_path):
    notebook = _project(tmp_path, "X_train_s")
    assert _findings(notebook) == [("fit_outside_cv", "prepare.py", 11)]


def test_cross_validating_the_unscaled_rows_stays_silent(tmp_path):
    notebook = _project(tmp_path, "X_train")
    assert _findings(notebook) == []


def test_a_cell_found_in_a_notebook_with_modules_keeps_its_cell_and_line(tmp_path):
    notebook = _project(tmp_path, "X_train")
    notebook.write_text(notebook.read_text().replace(
        'print(folds_score(LogisticRegression(), X_train, y_train))\\n',
        'everything = (patients - patients.mean()) / patients.std()\\n'
        'a, b, c, d = train_test_split(everything, patients[\\"sick\\"])\\n'
        'print(LogisticRegression().fit(a, c).score(b, d))\\n').replace(
        "import pandas as pd\\n", "import pandas as pd\\nfrom sklearn.model_selection import train_test_split\\n"))
    report, _ = analyze_file(str(notebook))
    found = [(f.kind, f.location.get("index"), f.location["line"]) for f in report.findings
             if f.severity >= Severity.WARNING]
    assert found == [("fit_before_split", 3, 1)]


# ----------------------------------------------------------------------------- the best of collected test scores

SCORED_IN_A_LOOP = """\
        a, b, c, d = train_test_split(X, y, random_state=0)
        candidates = [LogisticRegression(), Ridge(), make_pipeline(StandardScaler(), LogisticRegression())]
        test_scores = []
        for candidate in candidates:
            candidate.fit(a, c)
            test_scores.append(candidate.score(b, d))
"""

#: a later loop keeps the running best of the test scores, and announces that model as the best
RUNNING_BEST_LATER = SCORED_IN_A_LOOP + """\
        names = ["logistic", "ridge", "scaled logistic"]
        best, winner = 0.0, ""
        for i, title in enumerate(names):
            if test_scores[i] > best:
                best, winner = test_scores[i], title
        print("best:", winner, best)
"""

#: the scores only shown, one line each
SCORES_ONLY_SHOWN = SCORED_IN_A_LOOP + """\
        names = ["logistic", "ridge", "scaled logistic"]
        for i, title in enumerate(names):
            if i > 0:
                print("-" * 10)
            print(title, test_scores[i])
"""


def test_the_best_test_score_kept_by_a_later_loop_is_a_choice_on_the_test_rows(tmp_path):
    assert alarms(tmp_path, RUNNING_BEST_LATER) == [("tuned_on_test", 6)]


def test_test_scores_only_printed_by_a_later_loop_stay_silent(tmp_path):
    assert alarms(tmp_path, SCORES_ONLY_SHOWN) == []


# ----------------------------------------------------------------------------- a period as a string key (wave 66)

#: every day's price squeezed with the whole series' range, then the years up to 2017 train and 2018 tests
PERIOD_AFTER_SCALING = """\
        from sklearn.preprocessing import minmax_scale
        prices = pd.read_csv("prices.csv", index_col="day", parse_dates=True)
        scaled = prices.apply(minmax_scale)
        inputs, close = scaled.drop(columns=["close"]), scaled["close"]
        X_train, y_train = inputs[:"2017"], close[:"2017"]
        X_test, y_test = inputs["2018"], close["2018"]
        print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""

#: the range taken from the training years only
PERIOD_SCALED_ON_ITS_PAST = """\
        prices = pd.read_csv("prices.csv", index_col="day", parse_dates=True)
        inputs, close = prices.drop(columns=["close"]), prices["close"]
        scaler = MinMaxScaler().fit(inputs[:"2017"])
        X_train, y_train = scaler.transform(inputs[:"2017"]), close[:"2017"]
        X_test, y_test = scaler.transform(inputs["2018"]), close["2018"]
        print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""

#: a wide table whose columns are years: '2018' is a column, never sliced as dates
YEAR_COLUMNS = """\
        wide = pd.read_csv("gdp_by_year.csv")
        wide["growth"] = wide["2018"] / wide["2017"]
        a, b = train_test_split(wide)
        print(Ridge().fit(a[["growth"]], a["label"]).score(b[["growth"]], b["label"]))
"""


def test_a_year_key_beside_a_date_slice_is_the_test_period(tmp_path):
    assert alarms(tmp_path, PERIOD_AFTER_SCALING) == [("fit_before_split", 3)]


def test_a_scaler_fitted_on_the_training_years_stays_silent(tmp_path):
    assert alarms(tmp_path, PERIOD_SCALED_ON_ITS_PAST) == []


def test_year_named_columns_of_a_wide_table_stay_columns(tmp_path):
    assert alarms(tmp_path, YEAR_COLUMNS) == []


# ----------------------------------------------------------------------------- mlxtend's selectors' chosen columns

#: a forward selection by mlxtend on every row, its chosen columns then split into train and test
MLXTEND_BEFORE_SPLIT = """\
        from mlxtend.feature_selection import SequentialFeatureSelector as SFS
        plots = pd.read_csv("plots.csv")
        cols = plots.columns[2:]
        rows, harvest = plots[cols].values, plots["harvest"].values
        kept = []
        for size in range(1, 6):
            forward = SFS(estimator=Ridge(), k_features=size, forward=True, scoring="r2", cv=KFold(5))
            forward = forward.fit(rows, harvest)
            kept = np.array(cols)[list(forward.k_feature_idx_)]
        X_train, X_test, y_train, y_test = train_test_split(plots[kept].values, plots["harvest"].values)
        print(Ridge().fit(X_train, y_train).score(X_test, y_test))
"""

#: the same selection on the training part only
MLXTEND_AFTER_SPLIT = """\
        from mlxtend.feature_selection import SequentialFeatureSelector as SFS
        a, b, c, d = train_test_split(X, y, random_state=0)
        forward = SFS(Ridge(), k_features=4, forward=True, cv=KFold(5)).fit(a.values, c.values)
        kept = list(forward.k_feature_names_)
        print(Ridge().fit(a[kept], c).score(b[kept], d))
"""


def test_columns_chosen_by_mlxtend_on_every_row_before_the_split_are_found(tmp_path):
    assert alarms(tmp_path, MLXTEND_BEFORE_SPLIT) == [("fit_before_split", 8)]


def test_columns_chosen_by_mlxtend_on_the_training_part_stay_silent(tmp_path):
    assert alarms(tmp_path, MLXTEND_AFTER_SPLIT) == []
