"""Preprocessing leakage: the static analysis on real scripts and notebooks, the runtime monitor on real
scikit-learn runs (breast_cancer, wine), the fitted-statistics comparison, and the hoist_preprocessing shim."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from faultlib.detect.data.leakage import KINDS, analyze_file
from faultlib.errors import InjectionError, InputError
from faultlib.findings import Severity

HEADER = """\
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler, MinMaxScaler, Normalizer
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline, Pipeline
from sklearn.model_selection import train_test_split, cross_val_score, KFold, StratifiedKFold, GridSearchCV
from imblearn.over_sampling import SMOTE
X, y = load_breast_cancer(return_X_y=True)
"""
H = HEADER.count("\n")  # lines before each snippet


def analyze(tmp_path, body, name="script.py"):
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    report, _ = analyze_file(str(path))
    return report


def kinds(report):
    return [(f.kind, f.location["line"] - H) for f in report.findings]


# ----------------------------------------------------------------------------- static: leaks found


@pytest.mark.parametrize("body,expected", [
    # scaled on every row, then split
    ("""\
     scaler = StandardScaler()
     X_scaled = scaler.fit_transform(X)
     X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, random_state=0)
     """, [("fit_before_split", 2)]),
    # the fit happens in a helper; the value comes back through a return and tuple unpacking
    ("""\
     def load_scaled():
         data, target = load_breast_cancer(return_X_y=True)
         return StandardScaler().fit_transform(data), target

     features, labels = load_scaled()
     a, b, c, d = train_test_split(features, labels)
     """, [("fit_before_split", 3)]),
    # a split by slicing, the held-out part named as such
    ("""\
     Xs = MinMaxScaler().fit(X).transform(X)
     X_train, X_test = Xs[:400], Xs[400:]
     """, [("fit_before_split", 1)]),
    # fitted on the test part itself
    ("""\
     X_train, X_test, y_train, y_test = train_test_split(X, y)
     X_train = StandardScaler().fit_transform(X_train)
     X_test = StandardScaler().fit_transform(X_test)
     """, [("fit_on_test", 3)]),
    # fitted on train and test stacked
    ("""\
     X_train, X_test, y_train, y_test = train_test_split(X, y)
     scaler = StandardScaler().fit(np.vstack([X_train, X_test]))
     model = LogisticRegression().fit(scaler.transform(X_train), y_train)
     """, [("fit_on_test", 2)]),
    # selection on all rows and labels, then cross-validated
    ("""\
     X_sel = SelectKBest(f_classif, k=5).fit_transform(X, y)
     scores = cross_val_score(LogisticRegression(), X_sel, y, cv=5)
     """, [("fit_outside_cv", 1)]),
    # the same through a search
    ("""\
     X_all = StandardScaler().fit_transform(X)
     GridSearchCV(LogisticRegression(), {"C": [0.1, 1]}, cv=5).fit(X_all, y)
     """, [("fit_outside_cv", 1)]),
    # a hand-written CV loop over pre-scaled rows
    ("""\
     Z = StandardScaler().fit_transform(X)
     for train_idx, test_idx in KFold(5).split(Z):
         model = LogisticRegression().fit(Z[train_idx], y[train_idx])
         model.score(Z[test_idx], y[test_idx])
     """, [("fit_outside_cv", 1)]),
    # one fitted scaler applied in every fold
    ("""\
     scaler = StandardScaler().fit(X)
     for i, (tr, te) in enumerate(StratifiedKFold(5).split(X, y)):
         model = LogisticRegression().fit(scaler.transform(X[tr]), y[tr])
         model.score(scaler.transform(X[te]), y[te])
     """, [("reused_across_folds", 1)]),
    # a preprocessing class keeping its scaler on self
    ("""\
     class Prep:
         def __init__(self):
             self.scaler = StandardScaler()

         def fit(self, data):
             self.scaler.fit(data)
             return self

         def apply(self, data):
             return self.scaler.transform(data)

     prep = Prep().fit(X)
     Xp = prep.apply(X)
     tr, te, ytr, yte = train_test_split(Xp, y)
     """, [("fit_before_split", 6)]),
    # oversampling before the split: synthetic test rows made from training rows
    ("""\
     X_res, y_res = SMOTE().fit_resample(X, y)
     X_train, X_test, y_train, y_test = train_test_split(X_res, y_res)
     """, [("fit_before_split", 1)]),
    # a whole pipeline fitted on every row, then scored on a held-out part
    ("""\
     pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
     X_train, X_test, y_train, y_test = train_test_split(X, y)
     pipe.score(X_test, y_test)
     """, [("fit_before_split", 1)]),
])
def test_static_analysis_finds_each_kind(tmp_path, body, expected):
    report = analyze(tmp_path, body)
    assert kinds(report) == expected, f"{[f.message for f in report.findings]}"
    finding = report.findings[0]
    assert finding.detector == "leakage" and finding.location["file"].endswith("script.py")
    assert finding.location["column"] >= 1 and finding.evidence["estimator"]


def test_static_finding_names_estimator_function_and_severity(tmp_path):
    report = analyze(tmp_path, """\
        def preprocess(table, target):
            selector = SelectKBest(f_classif, k=3)
            return selector.fit_transform(table, target)

        def evaluate():
            feats = preprocess(X, y)
            return cross_val_score(LogisticRegression(), feats, y)

        evaluate()
        """)
    [finding] = report.findings
    assert finding.kind == "fit_outside_cv" and finding.severity is Severity.ERROR
    assert finding.location["function"] == "preprocess" and finding.location["line"] == H + 3
    assert finding.evidence["estimator"] == "SelectKBest" and finding.evidence["variable"] == "selector"
    assert finding.evidence["supervised"] is True and finding.evidence["at"]["line"] == H + 7
    unsupervised = analyze(tmp_path, "Xs = StandardScaler().fit_transform(X, y)\ncross_val_score(LogisticRegression(), Xs, y)\n")
    assert unsupervised.findings[0].severity is Severity.WARNING  # a scaler ignores y


@pytest.mark.parametrize("body", [
    # split first, fit on the training part, transform the test part
    """\
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    scaler = StandardScaler().fit(X_train)
    model = LogisticRegression().fit(scaler.transform(X_train), y_train)
    model.score(scaler.transform(X_test), y_test)
    model.score(scaler.transform(X_train), y_train)
    """,
    # fitted on a training slice, applied to the whole series
    """\
    n_train = 400
    scaler = StandardScaler().fit(X[:n_train])
    series = scaler.transform(X)
    model = LogisticRegression().fit(series[:n_train], y[:n_train])
    model.score(series[n_train:], y[n_train:])
    X_test = series[n_train:]
    """,
    # a Pipeline handed to cross_val_score and to a search
    """\
    pipe = make_pipeline(StandardScaler(), SelectKBest(f_classif, k=5), LogisticRegression())
    cross_val_score(pipe, X, y, cv=5)
    X_train, X_test, y_train, y_test = train_test_split(X, y)
    GridSearchCV(pipe, {"logisticregression__C": [1.0]}).fit(X_train, y_train).score(X_test, y_test)
    """,
    # refitted inside each fold
    """\
    for tr, te in KFold(5, shuffle=True).split(X):
        scaler = StandardScaler().fit(X[tr])
        model = LogisticRegression().fit(scaler.transform(X[tr]), y[tr])
        model.score(scaler.transform(X[te]), y[te])
    """,
    # a helper that fits on what it is told is training data
    """\
    def scale(train, test):
        s = StandardScaler().fit(train)
        return s.transform(train), s.transform(test)

    X_train, X_test, y_train, y_test = train_test_split(X, y)
    X_train, X_test = scale(X_train, X_test)
    """,
    # a stateless transformer before the split
    """\
    Xn = Normalizer().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(Xn, y)
    """,
    # data frames: column selection keeps rows, the split comes first
    """\
    df = pd.read_csv("data.csv")
    features = df.drop(columns=["target"])
    train_df, test_df = train_test_split(features)
    scaler = StandardScaler().fit(train_df[["a", "b"]])
    scaler.transform(test_df[["a", "b"]])
    """,
])
def test_static_analysis_stays_silent_on_healthy_code(tmp_path, body):
    report = analyze(tmp_path, body)
    assert report.findings == [], f"{[f.message for f in report.findings]}"
    assert report.complete


def test_uncalled_functions_are_analysed_with_their_parameter_names(tmp_path):
    report = analyze(tmp_path, """\
        def prepare(X_all, X_test):
            scaler = StandardScaler().fit(X_test)
            return scaler.transform(X_all)
        """)
    assert kinds(report) == [("fit_on_test", 2)] and report.findings[0].location["function"] == "prepare"


def test_notebook_findings_name_cell_and_line(tmp_path):
    cells = [
        {"cell_type": "markdown", "source": ["# Leaky notebook\n"]},
        {"cell_type": "code", "source": HEADER},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "scaler = StandardScaler()\n",
                                         "X_s = scaler.fit_transform(X)\n"]},
        {"cell_type": "markdown", "source": "split"},
        {"cell_type": "code", "source": "!pip list\nX_tr, X_te, y_tr, y_te = train_test_split(X_s, y)\n"},
    ]
    path = tmp_path / "leaky.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    report, smap = analyze_file(str(path))
    [finding] = report.findings
    assert finding.kind == "fit_before_split"
    assert finding.location["index"] == 3 and finding.location["line"] == 3
    assert finding.evidence["at"] == {"file": str(path), "line": 2, "index": 5}
    assert "cell 5 line 2" in finding.message and len(smap.cells) == 3


@pytest.mark.parametrize("name,content,phrase", [
    ("notes.txt", "X = 1\n", "is not a Python script or notebook"),
    ("broken.py", "def f(:\n    pass\n", "is not valid Python (line 1"),
    ("nb.ipynb", '{"nbformat": 4}', "is not a Jupyter notebook"),
    ("nb2.ipynb", '{"cells": [{"cell_type": "code", "source": "x = (\\n"}]}', "is not valid Python (cell 1 line 1"),
    ("nb4.ipynb", '{"cells": [', "invalid JSON"),
    ("binary.py", b"\x00\x01", "NUL byte"),
])
def test_bad_files_raise_input_errors(tmp_path, name, content, phrase):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as info:
        analyze_file(str(path))
    assert phrase in str(info.value) and name in str(info.value)


def test_kinds_cover_static_runtime_and_fitted():
    assert {"fit_before_split", "fit_on_test", "fit_outside_cv", "reused_across_folds", "fitted_rows_unknown",
            "shuffled_time_split", "entity_across_split", "duplicate_rows_across_split", "code_not_parsed", "inputs_not_assigned",
            "analysis_incomplete", "trained_on_test", "tuned_on_test", "target_in_features"} == set(KINDS)


# ----------------------------------------------------------------------------- runtime monitor


@pytest.fixture(scope="module")
def cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _pipe(monitor, k=5):
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    return monitor.wrap(Pipeline([("select", monitor.wrap(SelectKBest(f_classif, k=k))),
                                  ("scale", monitor.wrap(StandardScaler())),
                                  ("clf", LogisticRegression(max_iter=2000))]))


def test_monitor_is_silent_on_a_pipeline_in_cross_val_score(cancer):
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from faultlib.detect.data.leakage import LeakageMonitor

    x, y = cancer
    monitor = LeakageMonitor()
    scores = cross_val_score(_pipe(monitor), x, y, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    assert scores.mean() > 0.9 and monitor.findings() == []
    assert monitor.evaluations == 5 and len(monitor.fits) == 15  # 5 folds x (pipeline, selector, scaler)


def test_monitor_flags_selection_before_cv_and_names_the_call_site(cancer):
    from sklearn.feature_selection import SelectKBest, f_classif
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    from faultlib.detect.data.leakage import LeakageMonitor

    x, y = cancer
    monitor = LeakageMonitor()
    selected = monitor.wrap(SelectKBest(f_classif, k=5)).fit_transform(x, y); line = _line()  # noqa: E702
    cross_val_score(monitor.wrap(LogisticRegression(max_iter=2000)), selected, y, cv=5, scoring="accuracy")
    [finding] = monitor.findings()
    assert finding.kind == "fit_outside_cv" and finding.severity is Severity.ERROR
    assert finding.evidence["models_evaluated"] == 5 and finding.evidence["overlapping_rows"] == len(x)
    assert finding.location == {"function": "SelectKBest.fit_transform", "file": __file__, "line": line}


def _line():
    import sys

    return sys._getframe(1).f_lineno


def test_monitor_scaler_before_split_and_slice_fit(cancer):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from faultlib.detect.data.leakage import LeakageMonitor

    x, y = cancer
    monitor = LeakageMonitor()
    scaler = monitor.wrap(StandardScaler()).fit(x)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, random_state=0)
    model = monitor.wrap(LogisticRegression(max_iter=2000)).fit(scaler.transform(x_tr), y_tr)
    model.score(scaler.transform(x_tr), y_tr)  # a training score is not an evaluation on held-out rows
    assert monitor.events == []
    model.score(scaler.transform(x_te), y_te)
    [finding] = monitor.findings()
    assert finding.kind == "fit_before_split" and finding.severity is Severity.WARNING
    assert finding.evidence["held_out_rows"] == len(x_te) == finding.evidence["overlapping_rows"]

    monitor.reset()  # healthy: fitted on a training slice, applied to the whole series
    scaler = monitor.wrap(StandardScaler()).fit(x[:400])
    series = scaler.transform(x)
    model = monitor.wrap(LogisticRegression(max_iter=2000)).fit(series[:400], y[:400])
    assert model.score(series[400:], y[400:]) > 0.85 and monitor.findings() == []


def test_monitor_declared_test_set_and_reuse_inside_folds(cancer):
    from sklearn.frozen import FrozenEstimator
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from faultlib.detect.data.leakage import LeakageMonitor

    x, y = cancer
    monitor = LeakageMonitor()
    monitor.wrap(StandardScaler()).fit(x)
    monitor.heldout(x[-50:])
    assert [f.kind for f in monitor.findings()] == ["fit_on_test"]

    monitor.reset()
    prefit = monitor.wrap(StandardScaler()).fit(x)
    pipe = monitor.wrap(Pipeline([("scale", FrozenEstimator(prefit)), ("clf", LogisticRegression(max_iter=2000))]))
    cross_val_score(pipe, x, y, cv=4)
    [finding] = monitor.findings()
    assert finding.kind == "reused_across_folds" and finding.evidence["via"] == ["nested"]


def test_fingerprints_match_copies_and_differ_between_rows():
    import pandas as pd
    from scipy import sparse

    from faultlib.detect.data.leakage import row_fingerprints

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    fp = row_fingerprints(x)
    assert fp.dtype == np.uint64 and len(set(fp.tolist())) == 4
    assert (row_fingerprints(x.astype(np.float64)[[2, 0]]) == fp[[2, 0]]).all()
    assert (row_fingerprints(pd.DataFrame(x)) == fp).all()
    assert len(row_fingerprints(sparse.csr_matrix(x))) == 4
    assert len(row_fingerprints(np.array([["a", 1], ["b", 2]], dtype=object))) == 2


# ----------------------------------------------------------------------------- fitted statistics


@pytest.fixture(scope="module")
def wine_split():
    import pandas as pd
    from sklearn.datasets import load_wine
    from sklearn.model_selection import train_test_split

    data = load_wine(as_frame=True)
    train, test = train_test_split(data.data, random_state=0)
    return pd.DataFrame(train), pd.DataFrame(test)


@pytest.mark.parametrize("fit_on,expected,kind", [
    ("train", "train", None), ("test", "test", "fit_on_test"), ("both", "train+test", "fit_on_test"),
    ("head", "train[:60]", None), ("other", "unknown", "fitted_rows_unknown"),
])
def test_compare_fitted_says_which_rows(wine_split, fit_on, expected, kind):
    import pandas as pd
    from sklearn.preprocessing import StandardScaler

    from faultlib.detect.data.leakage.fitted import compare_fitted, scaler_from_mapping

    train, test = wine_split
    rows = {"train": train, "test": test, "both": pd.concat([train, test]), "head": train.iloc[:60],
            "other": pd.concat([train.iloc[5:], test.iloc[:3]])}[fit_on]
    scaler = StandardScaler().fit(rows.to_numpy())
    stats = {"mean_": scaler.mean_.tolist(), "scale_": scaler.scale_.tolist(),
             "n_samples_seen_": int(scaler.n_samples_seen_)}
    report = compare_fitted(scaler_from_mapping(stats, "params.json"), train, test)
    assert report.fitted_on == expected
    assert [f.kind for f in report.findings] == ([kind] if kind else [])
    assert json.dumps(report.fields())


def test_compare_fitted_minmax_and_feature_names(wine_split):
    from sklearn.preprocessing import MinMaxScaler

    from faultlib.detect.data.leakage.fitted import compare_fitted, scaler_from_mapping

    train, test = wine_split
    scaler = MinMaxScaler().fit(test[["alcohol", "malic_acid"]])
    stats = {"data_min_": scaler.data_min_.tolist(), "data_max_": scaler.data_max_.tolist(),
             "feature_names_in_": ["alcohol", "malic_acid"]}
    report = compare_fitted(scaler_from_mapping(stats, "p.json"), train, test)
    assert report.fitted_on == "test" and report.columns == ["alcohol", "malic_acid"]


def test_fitted_input_errors(wine_split):
    from faultlib.detect.data.leakage.fitted import compare_fitted, scaler_from_mapping

    train, test = wine_split
    with pytest.raises(InputError, match="holds no scaler statistics"):
        scaler_from_mapping({"coef_": [1.0]}, "p.json")
    with pytest.raises(InputError, match="mean_ has 2 values but var_/scale_ has 3"):
        scaler_from_mapping({"mean_": [1, 2], "var_": [1, 2, 3]}, "p.json")
    with pytest.raises(InputError, match="13 numeric columns but the scaler was fitted on 2"):
        compare_fitted(scaler_from_mapping({"mean_": [1, 2], "var_": [1, 2]}, "p.json"), train, test,
                       train_path="train.csv")
    with pytest.raises(InputError, match="has no column 'pH'"):
        compare_fitted(scaler_from_mapping({"mean_": [1], "var_": [1], "feature_names_in_": ["pH"]}, "p.json"),
                       train, test, train_path="train.csv")
    holed = test.copy()
    holed.iloc[3, 0] = np.nan                     # a NaN in the data is data: left out, as scikit-learn does
    report = compare_fitted(scaler_from_mapping({"mean_": [0] * 13, "var_": [1] * 13}, "p.json"), train, holed,
                            train_path="train.csv", test_path="test.csv")
    assert report.fields()["missing_values"] == {"train": 0, "test": 1} and report.fitted_on == "unknown"


# ----------------------------------------------------------------------------- the hoist_preprocessing shim


class _Target:
    def __init__(self, model):
        self.model, self.step, self.attempt, self.points, self.faults = model, None, 1, {}, []

    def subscribe(self, point, callback):
        self.points.setdefault(point, []).append(callback)

    def reach(self, step):
        for callback in self.points["step"]:
            callback("step", {"step": step})

    def record_fault(self, injector, **attributes):
        self.faults.append(attributes)


def test_hoist_preprocessing_fits_on_all_rows_in_its_window(cancer):
    from types import SimpleNamespace

    from sklearn.model_selection import cross_val_score

    from faultlib.detect.data.leakage import LeakageMonitor
    from faultlib.inject import build

    x, y = cancer
    monitor = LeakageMonitor()
    original = _pipe(monitor)
    experiment = SimpleNamespace(pipeline=original, X=x, y=y)
    shim = build("hoist_preprocessing", {"hoist": ["select"], "start_step": 1, "steps": 1})
    target = _Target(experiment)
    shim.apply(target)
    target.reach(0)
    assert experiment.pipeline is original and experiment.X is x
    target.reach(1)
    assert experiment.X.shape == (len(x), 5) and target.faults[0]["hoisted"] == "select"
    cross_val_score(experiment.pipeline, experiment.X, experiment.y, cv=3)
    assert [f.kind for f in monitor.findings()] == ["fit_outside_cv"]
    target.reach(2)
    assert experiment.pipeline is original
    shim.revert()
    with pytest.raises(InjectionError, match="leading steps"):
        build("hoist_preprocessing", {"hoist": ["scale"], "start_step": 0}).apply(_Target(
            SimpleNamespace(pipeline=original, X=x, y=y)))
    with pytest.raises(InjectionError, match="needs the attached object"):
        build("hoist_preprocessing", {"start_step": 0}).apply(_Target(SimpleNamespace(pipeline=original)))
