"""benchmarks/static_realworld.py's wave filter: a held-out wave is measured on its own label records.

The benchmark itself reads public checkouts and runs by hand; here a two-script corpus written for the test
stands in for them."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("static_realworld", REPO / "benchmarks" / "static_realworld.py")
static_realworld = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("static_realworld", static_realworld)
_spec.loader.exec_module(static_realworld)

# the scaler learns its statistics from every row, then the rows are split and the model scored on a part
_LEAKY = """import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression

table = pd.read_csv("measurements.csv")
features = StandardScaler().fit_transform(table[["width", "height"]])
a_train, a_test, b_train, b_test = train_test_split(features, table["label"], random_state=0)
print(LogisticRegression().fit(a_train, b_train).score(a_test, b_test))
"""
_CLEAN = """import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression

table = pd.read_csv("measurements.csv")
a_train, a_test, b_train, b_test = train_test_split(table[["width", "height"]], table["label"], random_state=0)
print(make_pipeline(StandardScaler(), LogisticRegression()).fit(a_train, b_train).score(a_test, b_test))
"""


def _corpus(tmp_path):
    repo = tmp_path / "corpus" / "someone+shapes"
    repo.mkdir(parents=True)
    (repo / "leaky.py").write_text(_LEAKY)
    (repo / "clean.py").write_text(_CLEAN)
    common = {"repo": "someone/shapes", "commit": "0" * 40}
    labels = [
        {**common, "path": "leaky.py", "verdict": "file", "wave": "early"},
        {**common, "path": "leaky.py", "cell": None, "line": 7, "kind": "fit_before_split", "wave": "early",
         "verdict": "tp", "why": "scaler fitted on every row before the split"},
        {**common, "path": "clean.py", "verdict": "file", "wave": "late"},
    ]
    return tmp_path / "corpus", labels


def test_a_wave_is_measured_on_its_own_files_and_labels(tmp_path):
    root, labels = _corpus(tmp_path)
    early = static_realworld.measure(root, static_realworld.select_waves(labels, ["early"]))
    assert (early["files"], early["tp"], early["fp"], early["fn"], early["unjudged"]) == (1, 1, 0, 0, 0)
    late = static_realworld.measure(root, static_realworld.select_waves(labels, ["late"]))
    assert (late["files"], late["tp"], late["fp"], late["unjudged"], late["recall"]) == (1, 0, 0, 0, None)
    both = static_realworld.measure(root, static_realworld.select_waves(labels, None))
    assert (both["files"], both["tp"]) == (2, 1)


def test_a_wave_no_record_carries_is_an_error_that_names_the_known_ones(tmp_path, capsys):
    root, labels = _corpus(tmp_path)
    with pytest.raises(ValueError, match="'missing'.*known waves: early, late"):
        static_realworld.select_waves(labels, ["early", "missing"])
    label_file = tmp_path / "labels.jsonl"
    label_file.write_text("".join(json.dumps(r) + "\n" for r in labels))
    with pytest.raises(SystemExit) as stop:
        static_realworld.main([str(root), "--labels", str(label_file), "--wave", "missing"])
    assert stop.value.code == 2
    assert "labels.jsonl" in capsys.readouterr().err


def test_waves_named_in_one_flag_or_repeated_flags_are_all_measured(tmp_path, capsys):
    root, labels = _corpus(tmp_path)
    label_file = tmp_path / "labels.jsonl"
    label_file.write_text("".join(json.dumps(r) + "\n" for r in labels))
    for waves in (["--wave", "early", "late"], ["--wave", "early", "--wave", "late"]):
        static_realworld.main([str(root), "--labels", str(label_file), "--json", *waves])
        measured = json.loads(capsys.readouterr().out)
        assert (measured["files"], measured["tp"]) == (2, 1), waves


def _alarms_only_corpus(tmp_path):
    """Wave "late" read in full (a miss labelled fn), wave "breadth" judged by its alarms alone."""
    root, labels = _corpus(tmp_path)
    other = root / "someone+shapes" / "second.py"
    other.write_text(_LEAKY)
    common = {"repo": "someone/shapes", "commit": "0" * 40}
    labels += [
        {**common, "path": "clean.py", "cell": None, "line": 9, "kind": "fit_on_test", "wave": "late",
         "verdict": "fn", "why": "a miss found by reading (made up for the test)"},
        {**common, "path": "second.py", "verdict": "file", "wave": "breadth", "alarms_only": True},
        {**common, "path": "second.py", "cell": None, "line": 7, "kind": "fit_before_split", "wave": "breadth",
         "alarms_only": True, "verdict": "tp", "why": "scaler fitted on every row before the split"},
        {**common, "path": "second.py", "cell": None, "line": 9, "kind": "fit_on_test", "wave": "breadth",
         "alarms_only": True, "verdict": "fn", "why": "a miss noticed in passing: never counted"},
    ]
    return root, labels


def test_an_alarms_only_wave_counts_in_precision_and_never_in_recall(tmp_path, capsys):
    root, labels = _alarms_only_corpus(tmp_path)
    breadth = static_realworld.measure(root, static_realworld.select_waves(labels, ["breadth"]))
    assert (breadth["files"], breadth["tp"], breadth["fp"], breadth["precision"]) == (1, 1, 0, 1.0)
    assert (breadth["fn"], breadth["recall"], breadth["alarms_only_files"]) == (0, None, 1)
    static_realworld._print(breadth, False)
    assert "n/a (alarms only)" in capsys.readouterr().out
    # with a wave read in full: tp 2 (precision over both), recall 1 of 2 from the full waves only (the fn of
    # clean.py), the alarms-only file's tp and fn left out of it
    every = static_realworld.measure(root, labels)
    assert (every["tp"], every["fp"], every["fn"], every["alarms_only_files"]) == (2, 0, 1, 1)
    assert every["recall"] == 0.5
    static_realworld._print(every, False)
    assert "leaves out 1 alarms-only files" in capsys.readouterr().out


def test_jobs_and_by_wave_give_each_wave_its_numbers_from_one_analysis_in_workers(tmp_path, capsys):
    root, labels = _alarms_only_corpus(tmp_path)
    label_file = tmp_path / "labels.jsonl"
    label_file.write_text("".join(json.dumps(r) + "\n" for r in labels))
    static_realworld.main([str(root), "--labels", str(label_file), "--json", "--wave", "early", "late", "breadth",
                           "--jobs", "2", "--by-wave"])
    measured = json.loads(capsys.readouterr().out)
    assert (measured["files"], measured["tp"], measured["fn"]) == (3, 2, 1)  # as measured in one process
    waves = measured["waves"]
    assert list(waves) == ["breadth", "early", "late"]
    assert (waves["early"]["tp"], waves["early"]["recall"]) == (1, 1.0)
    assert (waves["late"]["fn"], waves["late"]["recall"]) == (1, 0.0)
    assert (waves["breadth"]["tp"], waves["breadth"]["recall"]) == (1, None)
    static_realworld.main([str(root), "--labels", str(label_file), "--wave", "late", "--by-wave"])
    assert "wave     late: P n/a (tp 0, fp 0)  R 0.00 (0/1)" in capsys.readouterr().out


def test_a_helper_line_reached_from_two_scripts_is_judged_by_the_record_of_each_alarm_kind(tmp_path):
    # a helper module's statistic: the training script reaches it before its folds (fit_outside_cv), the
    # test-time script on the rows it predicts (fit_on_test); one record per kind at the helper's line
    repo = tmp_path / "corpus" / "someone+stocks"
    (repo / "src").mkdir(parents=True)
    for name in ("train.py", "predict.py", "src/features.py"):
        (repo / name).write_text("# written for the test\n")
    common = {"repo": "someone/stocks", "commit": "0" * 40}
    labels = [{**common, "path": p, "verdict": "file"} for p in ("train.py", "predict.py", "src/features.py")] + [
        {**common, "path": "src/features.py", "cell": None, "line": 5, "kind": "fit_outside_cv", "verdict": "fn",
         "why": "per-stock medians of every date before the date folds of train.py"},
        {**common, "path": "src/features.py", "cell": None, "line": 5, "kind": "fit_on_test", "verdict": "tp",
         "why": "the same medians of the rows predict.py predicts"},
    ]

    def alarm(kind):
        return {"kind": kind, "severity": "warning", "location": {"file": str(repo / "src" / "features.py"),
                                                                   "line": 5}}

    def analyses(*by_script):
        out = {repo / "src" / "features.py": ([], None, True, 0.0)}
        for script, found in zip(("train.py", "predict.py"), by_script):
            out[repo / script] = (found, None, True, 0.0)
        return out

    both = static_realworld.measure(tmp_path / "corpus", labels, analyses(
        [alarm("fit_outside_cv")], [alarm("fit_on_test")]))
    assert (both["tp"], both["fp"], both["fn"], both["recall"]) == (2, 0, 0, 1.0)
    one = static_realworld.measure(tmp_path / "corpus", labels, analyses([alarm("fit_outside_cv")], []))
    assert (one["tp"], one["fp"], one["fn"]) == (1, 0, 1)
    assert one["false_negatives"][0]["kind"] == "fit_on_test"
    wrong = static_realworld.measure(tmp_path / "corpus", labels, analyses([alarm("fit_before_split")], []))
    assert (wrong["tp"], wrong["fp"], wrong["fn"]) == (0, 1, 2)
    assert wrong["false_positives"][0]["why"].startswith("wrong kind")
