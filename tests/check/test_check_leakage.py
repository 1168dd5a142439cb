"""`faultlib check leakage`: scripts, notebooks and saved scaler statistics against real tables (CSV, Parquet,
JSON, NPY) in a temp directory; exit codes 0/1/2 and the JSON fields. The human output is checked black-box (its
own process); the rest calls the same entry in this process (:func:`tests.conftest.cli_in_process`: a fresh
interpreter per call imported pandas, pyarrow and sklearn again)."""

from __future__ import annotations

import json
import pickle
import textwrap

import numpy as np
import pytest

from tests.conftest import cli, cli_in_process

LEAKY = textwrap.dedent("""\
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import StandardScaler
    from sklearn.model_selection import train_test_split

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    from sklearn.linear_model import LogisticRegression
    print(LogisticRegression(max_iter=1000).fit(X_train, y_train).score(X_test, y_test))
    """)
HEALTHY = textwrap.dedent("""\
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.model_selection import cross_val_score

    X, y = load_wine(return_X_y=True)
    print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X, y).mean())
    """)
STATIC_FIELDS = {"detector", "ok", "findings", "mode", "file", "files", "cells", "complete", "stopped", "fits"}
FITTED_FIELDS = {"detector", "ok", "findings", "mode", "fitted_on", "scaler", "features", "columns", "n_samples_seen",
                 "candidates", "missing_values"}


def run(tmp_path, *args):
    proc = cli_in_process("check", "leakage", *args, cwd=tmp_path)
    out = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None
    return proc, out


def test_script_with_a_leak_exits_1_and_names_line_and_estimator(tmp_path):
    (tmp_path / "train.py").write_text(LEAKY)
    proc, out = run(tmp_path, "train.py", "--json")
    assert proc.returncode == 1, proc.stderr
    assert set(out) == STATIC_FIELDS and out["mode"] == "static" and out["cells"] is None and out["complete"]
    [finding] = out["findings"]
    assert finding["kind"] == "fit_before_split" and finding["severity"] == "warning"
    assert finding["location"] == {"file": "train.py", "line": 6, "column": 5, "function": "<module>"}
    assert finding["evidence"]["estimator"] == "StandardScaler" and finding["evidence"]["at"]["line"] == 7
    assert out["fits"] == [{"estimator": "StandardScaler", "variable": None, "file": "train.py", "line": 6,
                            "function": "<module>", "rows": "X", "supervised": False}]
    human = cli("check", "leakage", "train.py", cwd=tmp_path)
    assert human.returncode == 1 and "fit_before_split" in human.stdout and "train.py:6" in human.stdout
    assert cli_in_process("check", "leakage", "train.py", "--fail-on", "error", cwd=tmp_path).returncode == 0


def test_healthy_script_exits_0(tmp_path):
    (tmp_path / "ok.py").write_text(HEALTHY)
    proc, out = run(tmp_path, "ok.py", "--json")
    assert proc.returncode == 0 and out["ok"] is True and out["findings"] == []


def test_notebook_reports_cell_and_line(tmp_path):
    lines = LEAKY.splitlines(keepends=True)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# wine\n"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": lines[:5]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 2,
              "source": ["%%time\n", "print('timing cell skipped')\n"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 3,
              "source": ["%load_ext autoreload\n", *lines[5:]]}]
    (tmp_path / "leaky.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                      "nbformat_minor": 5}))
    proc, out = run(tmp_path, "leaky.ipynb", "--json")
    assert proc.returncode == 1, proc.stderr
    assert out["cells"] == 3
    [finding] = out["findings"]
    assert finding["location"]["index"] == 4 and finding["location"]["line"] == 2
    assert "cell 4 line 3" in finding["message"]


@pytest.mark.parametrize("name,content,phrase", [
    ("data.csv", "a,b\n1,2\n", "data.csv: is not a Python script or notebook"),
    ("broken.py", "import os\nif True\n    pass\n", "broken.py:2: is not valid Python"),
    ("broken.ipynb", '{"cells": 3}', "broken.ipynb: cells: is not a Jupyter notebook"),
    ("missing.py", None, "missing.py: file not found"),
])
def test_bad_input_exits_2_naming_the_file(tmp_path, name, content, phrase):
    if content is not None:
        (tmp_path / name).write_text(content)
    proc = cli_in_process("check", "leakage", name, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert phrase in proc.stderr and "Traceback" not in proc.stderr
    proc, out = run(tmp_path, name, "--json")
    assert proc.returncode == 2 and out["error"] == "InputError" and out["file"] == name


@pytest.mark.parametrize("args", [
    [], ["--fitted", "p.json"], ["--fitted", "p.json", "--train", "a.csv"], ["x.py", "--train", "a.csv"],
    ["x.py", "--fitted", "p.json", "--train", "a.csv", "--test", "b.csv"],
])
def test_usage_errors_exit_2(tmp_path, args):
    proc = cli_in_process("check", "leakage", *args, cwd=tmp_path)
    assert proc.returncode == 2 and "Usage" in proc.stderr + proc.stdout


# ----------------------------------------------------------------------------- --fitted


@pytest.fixture
def tables(tmp_path):
    """breast_cancer split 75/25, written as CSV, Parquet, JSON records and NPY (2-D) files."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    data = load_breast_cancer(as_frame=True).data.iloc[:, :6]
    data.columns = [c.replace(" ", "_") for c in data.columns]
    train, test = train_test_split(data, random_state=0)
    paths = {}
    for fmt in ("csv", "parquet", "json", "npy"):
        for name, frame in (("train", train), ("test", test)):
            path = tmp_path / f"{name}.{fmt}"
            if fmt == "csv":
                frame.to_csv(path, index=False)
            elif fmt == "parquet":
                frame.to_parquet(path, index=False)
            elif fmt == "json":
                path.write_text(frame.to_json(orient="records", double_precision=15))
            else:
                np.save(path, frame.to_numpy())
            paths[(name, fmt)] = path.name
    return tmp_path, train, test, paths


def _params(frame, names=False):
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(frame if names else frame.to_numpy())
    out = {"mean_": scaler.mean_.tolist(), "var_": scaler.var_.tolist(), "scale_": scaler.scale_.tolist(),
           "n_samples_seen_": int(scaler.n_samples_seen_)}
    if names:
        out["feature_names_in_"] = list(scaler.feature_names_in_)
    return out, scaler


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json", "npy"])
@pytest.mark.parametrize("fitted_on", ["train", "test", "train+test"])
def test_fitted_scaler_says_which_rows(tables, fmt, fitted_on):
    import pandas as pd

    tmp_path, train, test, paths = tables
    rows = {"train": train, "test": test, "train+test": pd.concat([train, test])}[fitted_on]
    params, _ = _params(rows)
    (tmp_path / "params.json").write_text(json.dumps({"scaler": params}))
    proc, out = run(tmp_path, "--fitted", "params.json#scaler", "--train", paths[("train", fmt)],
                    "--test", paths[("test", fmt)], "--json")
    assert proc.returncode == (0 if fitted_on == "train" else 1), proc.stdout + proc.stderr
    assert set(out) == FITTED_FIELDS and out["mode"] == "fitted"
    assert out["fitted_on"] == fitted_on and out["features"] == 6 and out["scaler"] == "StandardScaler"
    assert out["candidates"][fitted_on]["matches"] and out["candidates"]["train"]["rows"] == len(train)
    if fitted_on != "train":
        [finding] = out["findings"]
        assert finding["kind"] == "fit_on_test" and finding["severity"] == "error"
        assert finding["location"] == {"file": "params.json", "key": "scaler"}


def test_fitted_pickle_needs_allow_pickle(tables):
    tmp_path, train, test, paths = tables
    _, scaler = _params(test, names=True)
    (tmp_path / "scaler.pkl").write_bytes(pickle.dumps(scaler))
    base = ["--fitted", "scaler.pkl", "--train", paths[("train", "csv")], "--test", paths[("test", "csv")]]
    proc = cli_in_process("check", "leakage", *base, cwd=tmp_path)
    assert proc.returncode == 2 and "scaler.pkl: is a pickle" in proc.stderr and "--allow-pickle" in proc.stderr
    proc, out = run(tmp_path, *base, "--allow-pickle", "--json")
    assert proc.returncode == 1 and out["fitted_on"] == "test" and out["columns"] == list(train.columns)


def test_fitted_on_other_rows_is_a_warning(tables):
    tmp_path, train, test, paths = tables
    params, _ = _params(train.iloc[7:50])
    (tmp_path / "p.yaml").write_text("\n".join(f"{k}: {json.dumps(v)}" for k, v in params.items()) + "\n")
    proc, out = run(tmp_path, "--fitted", "p.yaml", "--train", paths[("train", "parquet")], "--test",
                    paths[("test", "parquet")], "--json")
    assert proc.returncode == 1 and out["fitted_on"] == "unknown"
    assert [f["kind"] for f in out["findings"]] == ["fitted_rows_unknown"]
    assert out["findings"][0]["severity"] == "warning"


@pytest.mark.parametrize("setup,phrase", [
    (lambda d, t: (d / "p.json").write_text(""), "p.json: is empty"),
    (lambda d, t: (d / "p.json").write_text('{"coef_": [1]}'), "p.json: holds no scaler statistics"),
    (lambda d, t: (d / "p.json").write_text('{"mean_": [1, 2], "var_": [1, 2]}'),
     "has 6 numeric columns but the scaler was fitted on 2 features"),
    (lambda d, t: (d / "p.json").write_text('{"mean_": [1], "var_": [1], "feature_names_in_": ["pH"]}'),
     "has no column 'pH'"),
    (lambda d, t: (d / "p.json").write_text('{"mean_": [NaN], "var_": [1]}'), "p.json:1: invalid JSON: NaN is not a JSON number"),
    (lambda d, t: ((d / "p.json").write_text(json.dumps(_params(t[0])[0])),
                   (d / "test.csv").write_text("a,b\n1,2\n")), "test.csv: mean_radius: has no column 'mean_radius'"),
    (lambda d, t: ((d / "p.json").write_text(json.dumps(_params(t[0])[0])),
                   (d / "train.csv").write_text("a,b\n1,2\n")), "train.csv: has 2 numeric columns"),
    (lambda d, t: ((d / "p.json").write_text(json.dumps(_params(t[0])[0])),
                   (d / "test.csv").write_text("")), "test.csv: is empty"),
])
def test_fitted_bad_input_exits_2(tables, setup, phrase):
    tmp_path, train, test, paths = tables
    setup(tmp_path, (train, test))
    proc = cli_in_process("check", "leakage", "--fitted", "p.json", "--train", "train.csv", "--test", "test.csv",
                          cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert phrase in proc.stderr and "Traceback" not in proc.stderr


def test_list_kinds_names_every_leakage_kind(tmp_path):
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=tmp_path)
    assert proc.returncode == 0
    assert set(json.loads(proc.stdout)["leakage"]) == {"fit_before_split", "fit_on_test", "fit_outside_cv",
                                                       "reused_across_folds", "fitted_rows_unknown",
                                                       "shuffled_time_split", "entity_across_split",
                                                       "duplicate_rows_across_split", "code_not_parsed", "inputs_not_assigned",
                                                       "analysis_incomplete", "trained_on_test",
                                                       "tuned_on_test", "target_in_features"}


def test_the_case_example_files(tmp_path):
    from tests.conftest import REPO

    case = REPO / "cases" / "scaler_leakage"
    proc, out = run(tmp_path, "--fitted", str(case / "examples" / "scaler.json"), "--train",
                    str(case / "examples" / "train.csv"), "--test", str(case / "examples" / "test.csv"), "--json")
    assert proc.returncode == 1 and out["fitted_on"] == "train+test"
    proc, out = run(tmp_path, str(case / "leaky_experiment.py"), "--json")
    assert proc.returncode == 1 and [f["kind"] for f in out["findings"]] == ["fit_outside_cv", "fit_outside_cv"]


# ----------------------------------------------------------------------------- data mode: --train/--test without --fitted


def _visits(path, rows):
    path.write_text("patient,age,dose,outcome\n" + "".join(f"{p},{a},{d},{o}\n" for p, a, d, o in rows))


def test_data_mode_counts_shared_rows_and_patients(tmp_path):
    _visits(tmp_path / "train.csv", [("p1", 50, 1.5, 0), ("p2", 61, 2.0, 1), ("p2", 61, 2.5, 1), ("p3", 40, "", 0)])
    _visits(tmp_path / "test.csv", [("p2", 61, 2.0, 1), ("p3", 40, "", 0), ("p4", 33, 1.0, 0), ("p4", 33, 1.0, 0)])
    proc, out = run(tmp_path, "--train", "train.csv", "--test", "test.csv", "--group", "patient", "--json")
    assert proc.returncode == 1, proc.stderr
    assert out["mode"] == "data" and out["rows"] == {"train": 4, "test": 4}
    assert out["duplicates"]["test_rows_in_train"] == 2 and out["duplicates"]["distinct_rows"] == 2
    assert out["duplicates"]["examples"][0] == {"test_index": 0, "train_index": 1}  # a NaN equals a NaN: row 1 too
    assert out["group"] == {"column": "patient", "shared_ids": 2, "train_ids": 3, "test_ids": 3, "test_rows": 2,
                            "examples": ["p2", "p3"]}
    assert sorted(f["kind"] for f in out["findings"]) == ["duplicate_rows_across_split", "entity_across_split"]
    human = cli("check", "leakage", "--train", "train.csv", "--test", "test.csv", cwd=tmp_path)
    assert human.returncode == 1 and "test rows also in train" in human.stdout


def test_data_mode_disjoint_tables_exit_0(tmp_path):
    _visits(tmp_path / "train.csv", [("p1", 50, 1.5, 0), ("p2", 61, 2.0, 1)])
    _visits(tmp_path / "test.csv", [("p3", 50, 1.5, 0), ("p4", 61, 2.5, 1)])
    proc, out = run(tmp_path, "--train", "train.csv", "--test", "test.csv", "--group", "patient", "--json")
    assert proc.returncode == 0 and out["findings"] == [] and out["group"]["shared_ids"] == 0


def test_data_mode_bad_input_exits_2(tmp_path):
    _visits(tmp_path / "train.csv", [("p1", 50, 1.5, 0)])
    (tmp_path / "test.csv").write_text("patient,age\np1,50\n")
    proc = cli_in_process("check", "leakage", "--train", "train.csv", "--test", "test.csv", "--group", "visit",
                          cwd=tmp_path)
    assert proc.returncode == 2 and "train.csv: visit: has no column 'visit'" in proc.stderr, proc.stderr


def test_data_mode_tables_without_a_common_column_are_bad_input():
    import pandas as pd

    from faultlib.detect.data.leakage.overlap import compare_tables
    from faultlib.errors import InputError

    with pytest.raises(InputError, match="other.csv: has no column in common with train.csv"):
        compare_tables(pd.DataFrame({"a": [1]}), pd.DataFrame({"b": [1]}), train_path="train.csv",
                       test_path="other.csv")


@pytest.mark.parametrize("args", [["--train", "a.csv"], ["x.py", "--group", "id"]])
def test_data_mode_usage_errors_exit_2(tmp_path, args):
    proc = cli_in_process("check", "leakage", *args, cwd=tmp_path)
    assert proc.returncode == 2 and "Usage" in proc.stderr + proc.stdout


SESSION_HELPERS = """\
from sklearn.linear_model import LogisticRegression

def score_fold(frame, k):
    fit_part = frame[frame['fold'] != k]
    held = frame[frame['fold'] == k]
    return LogisticRegression().fit(fit_part[['a', 'b']], fit_part['y']).score(held[['a', 'b']], held['y'])
"""

SESSION_MAIN = """\
import pandas as pd
from sklearn.preprocessing import StandardScaler
rows = pd.read_csv("rows_with_folds.csv")
rows[['a', 'b']] = StandardScaler().fit_transform(rows[['a', 'b']])
print([score_fold(rows, k) for k in range(5)])
"""


def test_scripts_given_together_run_as_one_program_and_findings_name_their_script(tmp_path):
    (tmp_path / "helpers.py").write_text(SESSION_HELPERS)
    (tmp_path / "main.py").write_text(SESSION_MAIN)
    proc, out = run(tmp_path, "helpers.py", "main.py", "--json")
    assert proc.returncode == 1, proc.stderr
    # several given: no one of them is the file the report is about (it was the last, which read as if the
    # others were only context); each finding names its own script
    assert out["file"] is None and out["files"] == ["helpers.py", "main.py"]
    [finding] = out["findings"]
    assert finding["kind"] == "fit_outside_cv" and finding["location"]["file"] == "main.py"
    assert finding["location"]["line"] == 4
    # one script: the sibling that defines score_fold is found and run first, unless --alone
    proc, out = run(tmp_path, "main.py", "--json")
    assert proc.returncode == 1 and out["files"] == ["helpers.py", "main.py"] and out["file"] == "main.py"
    proc, out = run(tmp_path, "main.py", "--alone", "--json")
    assert proc.returncode == 0 and out["files"] == ["main.py"] and out["findings"] == []
    assert run(tmp_path, "main.py", "helpers.py", "--alone")[0].returncode == 2
