"""`faultlib check labels`: real files in a temp directory, exit codes 0/1/2, the JSON fields. The human output is
checked black-box (its own process); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: a fresh interpreter per call imported the table readers again)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import cli, cli_in_process

DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
FIELDS = {"detector", "ok", "findings", "train_labels", "serving_labels", "missing", "extra", "mismatched_indices",
          "permutation", "renamed", "accuracy"}


def check(tmp_path, *args):
    proc = cli_in_process("check", "labels", *args, cwd=tmp_path)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None)


@pytest.fixture(scope="module")
def predictions():
    """Real (true_label, predicted_index) pairs of a digits classifier."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_digits(return_X_y=True)
    x_tr, x_te, y_tr, y_te = train_test_split(x / 16.0, y, random_state=0, stratify=y)
    predicted = LogisticRegression(max_iter=500).fit(x_tr, y_tr).predict_proba(x_te).argmax(1)
    return [DIGITS[t] for t in y_te], [int(p) for p in predicted]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"id2label": {str(i): n for i, n in enumerate(DIGITS)}}))
    (tmp_path / "serving.yaml").write_text("postprocess:\n  class_names:\n" + "".join(f"    - {n}\n" for n in sorted(DIGITS)))
    (tmp_path / "same.yaml").write_text("postprocess:\n  class_names:\n" + "".join(f"    - {n}\n" for n in DIGITS))
    (tmp_path / "labels.txt").write_text("\n".join(DIGITS) + "\n")
    (tmp_path / "label2id.json").write_text(json.dumps({n: i for i, n in sorted(enumerate(DIGITS), key=lambda p: p[1])}))
    return tmp_path


def test_equal_maps_in_other_serialisations_exit_0(files):
    for train, serving in [("config.json", "same.yaml#postprocess.class_names"), ("labels.txt", "label2id.json"),
                           ("label2id.json", "config.json#id2label")]:
        proc, out = check(files, train, serving, "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert set(out) == FIELDS and out["ok"] is True and out["findings"] == []
        assert out["permutation"] == {str(i): i for i in range(10)}


def test_reordered_serving_list_exits_1_with_the_permutation(files):
    proc, out = check(files, "config.json", "serving.yaml#postprocess.class_names", "--json")
    assert proc.returncode == 1
    assert [f["kind"] for f in out["findings"]] == ["permutation"]
    finding = out["findings"][0]
    assert finding["detector"] == "labels" and finding["severity"] == "error"
    assert finding["location"] == {"file": "serving.yaml", "line": 2, "key": "postprocess.class_names"}
    assert out["permutation"] == {str(i): sorted(DIGITS).index(n) for i, n in enumerate(DIGITS)}
    assert len(out["mismatched_indices"]) == 9 and out["missing"] == [] and out["extra"] == []
    human = cli("check", "labels", "config.json", "serving.yaml#postprocess.class_names", cwd=files)
    assert human.returncode == 1 and "permutation" in human.stdout and "0->9" in human.stdout


def test_fail_on_critical_passes_an_error_finding(files):
    proc, out = check(files, "config.json", "serving.yaml#postprocess.class_names", "--json", "--fail-on", "critical")
    assert proc.returncode == 0 and out["ok"] is True and out["findings"]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl", "npy"])
def test_predictions_in_every_table_format_report_accuracy_per_map(files, predictions, fmt):
    truth, predicted = predictions
    path = files / f"pred.{fmt}"
    if fmt == "csv":
        path.write_text("true_label,predicted_index\n" + "".join(f"{t},{p}\n" for t, p in zip(truth, predicted)))
    elif fmt == "parquet":
        import pandas as pd

        pd.DataFrame({"true_label": truth, "predicted_index": predicted}).to_parquet(path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({"true_label": t, "predicted_index": p}) + "\n"
                                for t, p in zip(truth, predicted)))
    else:
        table = np.array(list(zip(truth, predicted)), dtype=[("true_label", "U8"), ("predicted_index", "i8")])
        np.save(path, table)
    proc, out = check(files, "config.json", "serving.yaml#postprocess.class_names", "--predictions", path.name,
                      "--json")
    assert proc.returncode == 1, proc.stderr
    assert {f["kind"] for f in out["findings"]} == {"permutation", "accuracy_drop"}
    accuracy = out["accuracy"]
    assert accuracy["predictions"] == len(truth) and accuracy["undecodable"] == 0
    assert accuracy["training_mapping"] > 0.93 and accuracy["serving_mapping"] < 0.15
    proc, out = check(files, "config.json", "same.yaml#postprocess.class_names", "--predictions", path.name, "--json")
    assert proc.returncode == 0 and out["accuracy"]["serving_mapping"] == out["accuracy"]["training_mapping"]


@pytest.mark.parametrize("setup,args,phrase", [
    (lambda d: (d / "empty.json").write_text(""), ["empty.json", "config.json"], "empty.json: is empty"),
    (lambda d: None, ["config.json", "serving.yaml#postprocess.names"], "serving.yaml:1: postprocess.names"),
    (lambda d: None, ["config.json", "missing.yaml"], "missing.yaml: file not found"),
    (lambda d: (d / "p.csv").write_text("label,index\ncat,1\n"),
     ["config.json", "same.yaml#postprocess.class_names", "--predictions", "p.csv"], "p.csv: predicted_index: has no column named like"),
    (lambda d: (d / "p.csv").write_text("true_label,predicted_index\nzero,12\n"),
     ["config.json", "same.yaml#postprocess.class_names", "--predictions", "p.csv"], "no label in the training map"),
    (lambda d: (d / "p.csv").write_text("true_label,predicted_index\nzero,1.5\n"),
     ["config.json", "same.yaml#postprocess.class_names", "--predictions", "p.csv"], "not a whole number"),
    (lambda d: (d / "dup.txt").write_text("a\nb\na\n"), ["dup.txt", "config.json"], "dup.txt:3: label 'a' appears twice"),
    (lambda d: (d / "bin.txt").write_bytes(b"\xff\xfe\x00"), ["bin.txt", "config.json"], "bin.txt:1: is not valid UTF-8"),
])
def test_bad_input_exits_2_naming_the_file(files, setup, args, phrase):
    setup(files)
    proc = cli_in_process("check", "labels", *args, cwd=files)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert phrase in proc.stderr and "Traceback" not in proc.stderr
    proc, out = check(files, *args, "--json")
    assert proc.returncode == 2 and out["error"] == "InputError" and out["file"]


def test_usage_errors_exit_2(files):
    assert cli_in_process("check", "labels", "config.json", cwd=files).returncode == 2
    assert cli_in_process("check", "labels", "config.json", "same.yaml", "--fail-on", "loud", cwd=files).returncode == 2


def test_list_kinds_names_every_label_kind(tmp_path):
    proc = cli_in_process("check", "--list-kinds", "--json", cwd=tmp_path)
    assert proc.returncode == 0
    kinds = json.loads(proc.stdout)["labels"]
    assert {"permutation", "mismatched_indices", "missing_in_serving", "extra_in_serving", "accuracy_drop"} <= set(kinds)


def test_the_case_example_files_show_the_collapse(tmp_path):
    from tests.conftest import REPO

    examples = REPO / "cases" / "label_mapping_drift" / "examples"
    proc, out = check(tmp_path, str(examples / "id2label.json"),
                      f"{examples / 'serving.yaml'}#postprocess.class_names",
                      "--predictions", str(examples / "predictions.csv"), "--json")
    assert proc.returncode == 1 and {f["kind"] for f in out["findings"]} == {"permutation", "accuracy_drop"}
    assert out["accuracy"]["training_mapping"] > 0.95 and out["accuracy"]["serving_mapping"] < 0.15
