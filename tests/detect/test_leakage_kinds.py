"""The static leakage analysis on the kinds of mistake seen in public code (issue 17), each in both directions:
the leak found at its line, and the healthy look-alike silent. Every example is written for this test."""

from __future__ import annotations

import json
import textwrap

import pytest

from faultlib.detect.data.leakage import analyze_file
from faultlib.pyflow import interp
from faultlib.findings import Severity

HEADER = """\
import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler, MinMaxScaler
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.utils import resample
from sklearn.model_selection import (train_test_split, cross_val_score, KFold, GroupKFold, GroupShuffleSplit,
                                     TimeSeriesSplit, GridSearchCV)
from imblearn.over_sampling import SMOTE
table = pd.read_csv("visits.csv")
X, y = table.drop(columns=["label"]), table["label"]
"""
H = HEADER.count("\n")


def alarms(tmp_path, body, name="job.py"):
    """(kind, line in the snippet) of every finding at warning or above."""
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    assert report.complete, report.stopped
    return [(f.kind, f.location["line"] - H) for f in report.findings if f.severity >= Severity.WARNING]


LEAKS = {
    "split into a dict, fit before it": ("""\
        Z = StandardScaler().fit_transform(X)
        parts = {}
        parts["train"], parts["test"], parts["y_train"], parts["y_test"] = train_test_split(Z, y)
        LogisticRegression().fit(parts["train"], parts["y_train"]).score(parts["test"], parts["y_test"])
        """, [("fit_before_split", 1)]),
    "a Bunch's field scaled, then split": ("""\
        bunch = load_digits()
        scaled = StandardScaler().fit_transform(bunch.data)
        a, b, c, d = train_test_split(scaled, bunch.target)
        LogisticRegression().fit(a, c).score(b, d)
        """, [("fit_before_split", 2)]),
    "a column attribute filled with its mean": ("""\
        table.age = table.age.fillna(table.age.mean())
        tr, te = train_test_split(table)
        Ridge().fit(tr, tr["label"])
        """, [("fit_before_split", 1)]),
    "standardised by hand": ("""\
        Xn = (X - X.mean()) / X.std()
        a, b, c, d = train_test_split(Xn, y)
        Ridge().fit(a, c)
        """, [("fit_before_split", 1)]),
    "min-max by hand": ("""\
        Xm = (X - X.min()) / (X.max() - X.min())
        a, b, c, d = train_test_split(Xm, y)
        Ridge().fit(a, c)
        """, [("fit_before_split", 1)]),  # one statement, one finding (three statistics)
    "target mean per category on all rows": ("""\
        table["city_rate"] = table.groupby("city")["label"].transform("mean")
        tr, te = train_test_split(table)
        Ridge().fit(tr[["city_rate"]], tr["label"])
        """, [("fit_before_split", 1)]),
    "np.mean of the whole column after the split": ("""\
        tr, te = train_test_split(table)
        tr["age"] = tr["age"].fillna(np.mean(table["age"]))
        Ridge().fit(tr, tr["label"])
        """, [("fit_before_split", 2)]),
    "scaler before a hand-written k-fold loop": ("""\
        Z = MinMaxScaler().fit_transform(X)
        for tr, te in KFold(5).split(Z):
            Ridge().fit(Z[tr], y[tr]).score(Z[te], y[te])
        """, [("fit_outside_cv", 1)]),
    "grid search over rows transformed outside it": ("""\
        Z = PCA(5).fit_transform(X)
        GridSearchCV(Ridge(), {"alpha": [1, 10]}).fit(Z, y)
        """, [("fit_outside_cv", 1)]),
    "resample (with replacement) before the split": ("""\
        minority = table[table.label == 1]
        boosted = pd.concat([table, resample(minority, n_samples=500)])
        tr, te = train_test_split(boosted)
        Ridge().fit(tr, tr["label"])
        """, [("fit_before_split", 2)]),
    "SMOTE output cross-validated": ("""\
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        X_res, y_res = SMOTE().fit_resample(X_tr, y_tr)
        cross_val_score(LogisticRegression(), X_res, y_res)
        """, [("fit_outside_cv", 2)]),
    "train and test concatenated, then sliced apart": ("""\
        train, test = pd.read_csv("a.csv"), pd.read_csv("b.csv")
        both = pd.concat([train, test])
        both = StandardScaler().fit_transform(both)
        X_tr, X_te = both[:1000], both[1000:]
        Ridge().fit(X_tr, y).predict(X_te)
        """, [("fit_on_test", 3)]),
    "a helper's unknown tables stacked, the second named test": ("""\
        def load(path):
            raw = np.load(path)
            return raw[:, :-1], raw[:, -1]
        X_tr, y_tr = load("tr.npy")
        X_te, y_te = load("te.npy")
        enc = StandardScaler().fit(np.vstack((X_tr, X_te)))
        Ridge().fit(enc.transform(X_tr), y_tr).score(enc.transform(X_te), y_te)
        """, [("fit_on_test", 6)]),
    "one patient's visits on both sides": ("""\
        visits_per_patient = table.groupby("patient_id").size()
        a, b, c, d = train_test_split(X, y)
        """, [("entity_across_split", 2)]),
    "a row-wise KFold over grouped rows": ("""\
        per_subject = table.groupby(["subject_id"]).mean()
        cross_val_score(Ridge(), X, y, cv=KFold(5, shuffle=True))
        """, [("entity_across_split", 2)]),
    "lag features split with shuffling": ("""\
        table["lag1"] = table["load"].shift(1)
        a, b, c, d = train_test_split(table, y)
        """, [("shuffled_time_split", 2)]),
    "rolling features in a shuffled KFold": ("""\
        table["mean7"] = table["load"].rolling(7).mean()
        cross_val_score(Ridge(), table, y, cv=KFold(5, shuffle=True))
        """, [("shuffled_time_split", 2)]),
}

HEALTHY = {
    "split into a dict, fit on its training part": """\
        parts = {}
        parts["train"], parts["test"], parts["y_train"], parts["y_test"] = train_test_split(X, y)
        scaler = StandardScaler().fit(parts["train"])
        model = LogisticRegression().fit(scaler.transform(parts["train"]), parts["y_train"])
        model.score(scaler.transform(parts["test"]), parts["y_test"])
        """,
    "splits in a list": """\
        splits = train_test_split(X, y)
        scaler = StandardScaler().fit(splits[0])
        LogisticRegression().fit(scaler.transform(splits[0]), splits[2]).score(scaler.transform(splits[1]), splits[3])
        """,
    "train split again into train and validation": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        scaler = StandardScaler().fit(X_train)
        X_fit, X_val, y_fit, y_val = train_test_split(scaler.transform(X_train), y_train)
        LogisticRegression().fit(X_fit, y_fit).score(X_val, y_val)
        """,
    "slices of one set, a model scored on its own training rows": """\
        X_train, X_test = X[:6000], X[6000:]
        Xs = StandardScaler().fit_transform(X_train)
        model = LogisticRegression().fit(Xs[:1000], y[:1000])
        model.predict(Xs)
        """,
    "a decision-surface plot of train and test stacked": """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        sc = StandardScaler().fit(X_train)
        model = LogisticRegression().fit(sc.transform(X_train), y_train)
        stacked = np.vstack((sc.transform(X_train), sc.transform(X_test)))
        def draw(data, test_idx):
            grid = np.c_[np.arange(data[:, 0].min(), data[:, 0].max(), 0.1)]
            model.predict(grid)
            X_test = data[test_idx, :]
            return X_test
        draw(stacked, range(100, 150))
        """,
    "Bunch split first, then scaled": """\
        bunch = load_digits()
        a, b, c, d = train_test_split(bunch.data, bunch.target)
        s = StandardScaler().fit(a)
        LogisticRegression().fit(s.transform(a), c).score(s.transform(b), d)
        """,
    "statistics of the training part applied to the test part": """\
        tr, te = train_test_split(table)
        fill = tr["age"].median()
        tr["age"], te["age"] = tr["age"].fillna(fill), te["age"].fillna(fill)
        Ridge().fit(tr, tr["label"]).predict(te)
        """,
    "statistics that are metrics, labels or prints": """\
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        y_bin = (y > y.mean()).astype(int)
        pred = Ridge().fit(X_tr, y_tr).predict(X_te)
        print((pred == y_te).mean(), y_te.mean())
        """,
    "transformer inside the cross-validated pipeline": """\
        cross_val_score(make_pipeline(StandardScaler(), Ridge()), X, y)
        GridSearchCV(make_pipeline(PCA(5), Ridge()), {"ridge__alpha": [1, 10]}).fit(X, y)
        """,
    "resample after the split, on the training rows": """\
        tr, te = train_test_split(table)
        tr_up = pd.concat([tr, resample(tr[tr.label == 1], n_samples=300)])
        Ridge().fit(tr_up, tr_up["label"]).predict(te)
        """,
    "grouped rows split by group": """\
        per_patient = table.groupby("patient_id").size()
        tr_idx, te_idx = next(GroupShuffleSplit().split(X, y, groups=table["patient_id"]))
        cross_val_score(Ridge(), X, y, groups=table["patient_id"], cv=GroupKFold(5))
        """,
    "a recommender's users on both sides": """\
        per_user = table.groupby("user_id").size()
        a, b, c, d = train_test_split(X, y)
        """,
    "lag features split in time order": """\
        table["lag1"] = table["load"].shift(1)
        a, b, c, d = train_test_split(table, y, shuffle=False)
        cross_val_score(Ridge(), table, y, cv=TimeSeriesSplit(5))
        """,
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_each_leak_is_found_at_its_fit(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_each_healthy_look_alike_is_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []


def test_an_exploratory_embedding_of_train_and_test_is_info_only(tmp_path):
    body = """\
        X_train, X_test, y_train, y_test = train_test_split(X, y)
        emb = TSNE(2).fit_transform(np.vstack([X_train, X_test]))
        plt_points = emb[:, 0]
        LogisticRegression().fit(X_train, y_train).score(X_test, y_test)
        """
    path = tmp_path / "look.py"
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    [finding] = report.findings
    assert finding.kind == "fit_on_test" and finding.severity == Severity.INFO
    assert finding.evidence["reaches_model"] is False and "exploratory" in finding.message


def test_one_fit_gives_one_finding_with_the_most_specific_kind(tmp_path):
    body = """\
        Z = StandardScaler().fit_transform(X)
        a, b, c, d = train_test_split(Z, y)
        cross_val_score(Ridge(), Z, y)
        Ridge().fit(a, c).score(b, d)
        """
    path = tmp_path / "twice.py"
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    [finding] = report.findings
    assert finding.kind == "fit_before_split" and finding.evidence["also"] == ["fit_outside_cv"]


def _chain(depth: int) -> str:
    lines = [f"def step{i}(data):\n    return step{i + 1}(data)\n" for i in range(depth)]
    lines.append(f"def step{depth}(data):\n    return StandardScaler().fit_transform(data)\n")
    lines.append("Z = step0(X)\na, b, c, d = train_test_split(Z, y)\nRidge().fit(a, c)\n")
    return "".join(lines)


def test_a_fit_25_calls_deep_is_found(tmp_path):
    path = tmp_path / "deep.py"
    path.write_text(HEADER + _chain(25))
    report, _ = analyze_file(str(path))
    assert report.complete and [f.kind for f in report.findings] == ["fit_before_split"]
    assert report.findings[0].location["function"] == "step25"


def test_a_chain_past_the_depth_budget_is_said_incomplete(tmp_path):
    from tests.conftest import cli_in_process

    (tmp_path / "deeper.py").write_text(HEADER + _chain(interp.MAX_DEPTH + 5))
    proc = cli_in_process("check", "leakage", "deeper.py", "--json", cwd=tmp_path)
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and out["complete"] is False and "deeper than" in out["stopped"]
    [incomplete] = [f for f in out["findings"] if f["kind"] == "analysis_incomplete"]
    assert incomplete["severity"] == "warning" and "step" in incomplete["message"]


def test_an_exhausted_operation_budget_is_never_ok(tmp_path, monkeypatch):
    monkeypatch.setattr(interp, "MAX_OPERATIONS", 50)
    path = tmp_path / "long.py"
    path.write_text(HEADER + "Z = StandardScaler().fit_transform(X)\n" * 40)
    report, _ = analyze_file(str(path))
    assert not report.complete and "budget" in report.stopped
    assert [f.kind for f in report.findings if f.severity >= Severity.WARNING] == ["analysis_incomplete"]


# ----------------------------------------------------------------------------- input handling


def _notebook(path, *cells):
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                           "source": textwrap.dedent(c)} for c in cells],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_magics_inside_blocks_and_a_broken_cell_do_not_stop_the_analysis(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook(path, HEADER,
              """\
              try:
                  %load_ext autoreload
              except ImportError:
                  !pip install something
              if True:
                  files = !ls
              """,
              "plot(  # an unfinished cell\n",
              """\
              >>> Z = StandardScaler().fit_transform(X)
              >>> a, b, c, d = train_test_split(Z, y)
              ... 
              >>> Ridge().fit(a, c)
              Ridge()
              """)
    report, smap = analyze_file(str(path))
    notes = [(f.kind, f.severity, f.location.get("index")) for f in report.findings]
    assert ("code_not_parsed", Severity.INFO, 3) in notes
    assert ("fit_before_split", Severity.WARNING, 4) in notes and report.complete


def test_a_python2_print_is_read_as_a_call_and_other_bad_statements_are_skipped(tmp_path):
    path = tmp_path / "old.py"
    path.write_text(HEADER + "print 'loading'\nZ = StandardScaler().fit_transform(X)\ndef broken(:\n    pass\n"
                    "a, b, c, d = train_test_split(Z, y)\nRidge().fit(a, c)\n")
    report, _ = analyze_file(str(path))
    found = [(f.kind, f.severity, f.location["line"] - H) for f in report.findings]
    assert ("fit_before_split", Severity.WARNING, 2) in found and ("code_not_parsed", Severity.INFO, 3) in found


@pytest.mark.parametrize("name,content", [("empty.py", ""), ("blank.py", "\n\n"), ("empty.ipynb", ""),
                                          ("prose.ipynb", '{"cells": [{"cell_type": "markdown", "source": "hi"}]}')])
def test_an_empty_file_has_nothing_to_analyse(tmp_path, name, content):
    (tmp_path / name).write_text(content)
    report, _ = analyze_file(str(tmp_path / name))
    assert report.findings == [] and report.fits == [] and report.complete


def test_an_empty_file_exits_0(tmp_path):
    from tests.conftest import cli_in_process

    (tmp_path / "empty.py").write_text("")
    proc = cli_in_process("check", "leakage", "empty.py", "--json", cwd=tmp_path)
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["ok"] and out["findings"] == [] and out["complete"]


def test_a_percent_continuation_line_is_code_and_doctest_prompts_in_a_script_are_read(tmp_path):
    path = tmp_path / "fmt.py"
    path.write_text(HEADER + 'print("rows: %d"\n      % len(X))\n%matplotlib inline\n'
                    ">>> Z = StandardScaler().fit_transform(X)\n>>> a, b, c, d = train_test_split(Z, y)\n"
                    ">>> Ridge().fit(a, c)\nRidge()\n")
    report, _ = analyze_file(str(path))
    assert [(f.kind, f.location["line"] - H) for f in report.findings] == [("fit_before_split", 4)]
