"""Assertion suite of label_mapping_drift; the `evidence` fixture comes from faultlib.cases.fixture."""

import json
import os
import subprocess
import sys
from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
WINDOW = set(range(SHIM["start_step"], SHIM["start_step"] + SHIM["steps"]))
NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
SORTED = sorted(NAMES)


def _batches(phase):
    return phase.steps("serve.batch")


def _step(span):
    return span.attributes["faultlib.step"]


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    assert evidence.control.metric("faultlib_label_map_mismatched_indices") == 0
    assert evidence.control.metric("faultlib_label_map_checks_total", result="ok") == 1
    assert all(s.attributes["labels_ok"] for s in _batches(evidence.control))


def test_control_serves_the_models_accuracy(evidence):
    summary = evidence.control.summary
    assert summary["model_accuracy"] >= 0.93
    assert summary["accuracy_serving"] == summary["accuracy_guarded"] == summary["model_accuracy"]


def test_batches_before_the_drift_are_served_normally(evidence):
    control = {_step(s): s.attributes for s in _batches(evidence.control)}
    before = [s for s in _batches(evidence.faulted) if _step(s) < min(WINDOW)]
    assert before
    for span in before:
        assert span.attributes["accuracy_serving"] == control[_step(span)]["accuracy_serving"]
        assert span.attributes["first_label"] == "zero"


def test_served_accuracy_collapses_under_the_reordered_list(evidence):
    during = [s for s in _batches(evidence.faulted) if _step(s) in WINDOW]
    assert {_step(s) for s in during} == WINDOW
    assert all(s.attributes["first_label"] == SORTED[0] for s in during)  # the alphabetical list was live
    served = sum(s.attributes["accuracy_serving"] for s in during) / len(during)
    model = sum(s.attributes["accuracy_guarded"] for s in during) / len(during)
    assert served < 0.25, f"unguarded accuracy under drift {served:.3f}"
    assert model >= 0.9, f"the model itself got worse: {model:.3f}"
    assert evidence.faulted.summary["accuracy_serving"] < evidence.control.summary["accuracy_serving"] - 0.2


def test_detector_reports_the_permutation_at_the_first_drifted_batch(evidence):
    findings = [f for f in evidence.faulted.findings if f.detector == "labels"]
    assert [f.kind for f in findings] == ["permutation"], f"{[f.kind for f in findings]}"
    finding = findings[0]
    assert finding.location["step"] == min(WINDOW)
    assert finding.location["key"] == "postprocess.class_names"
    expected = {str(i): SORTED.index(name) for i, name in enumerate(NAMES)}
    assert finding.evidence["permutation"] == expected
    assert finding.evidence["moved"] == sum(SORTED[i] != NAMES[i] for i in range(10)) == 9
    assert evidence.faulted.metric("faultlib_label_map_checks_total", result="drift") == 1
    assert evidence.faulted.metric("faultlib_label_map_mismatched_indices", window="during") == 9
    assert evidence.faulted.metric("faultlib_label_map_mismatched_indices", window="after") == 0  # rolled back


def test_guarded_decoder_keeps_the_models_accuracy(evidence):
    control = {_step(s): s.attributes["accuracy_guarded"] for s in _batches(evidence.control)}
    for phase in (evidence.control, evidence.faulted):
        for span in _batches(phase):
            assert span.attributes["accuracy_guarded"] == control[_step(span)], _step(span)
    assert evidence.faulted.summary["accuracy_guarded"] == evidence.control.summary["model_accuracy"]


def test_service_recovers_after_the_rollback(evidence):
    control = {_step(s): s.attributes for s in _batches(evidence.control)}
    after = [s for s in _batches(evidence.faulted) if _step(s) > max(WINDOW)]
    assert after
    for span in after:
        assert span.attributes["labels_ok"] and span.attributes["mismatched_indices"] == 0
        assert span.attributes["accuracy_serving"] == control[_step(span)]["accuracy_serving"]
    checks = [s for s in evidence.faulted.spans_named("labels.check")]
    assert [s.attributes["ok"] for s in checks] == [True, False, True]


def _check(*args):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", "check", "labels", *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_labels_cli_on_the_dumped_files(evidence):
    faulted, control = evidence.dumps / evidence.faulted.name, evidence.dumps / evidence.control.name
    proc = _check(str(faulted / "id2label.json"), f"{faulted / 'serving-drift.yaml'}#postprocess.class_names",
                  "--predictions", str(faulted / "predictions.csv"))
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert {f["kind"] for f in out["findings"]} == {"permutation", "accuracy_drop"}
    assert out["permutation"] == {str(i): SORTED.index(n) for i, n in enumerate(NAMES)}
    assert out["accuracy"]["training_mapping"] == evidence.faulted.summary["model_accuracy"]
    assert out["accuracy"]["serving_mapping"] < 0.25
    proc = _check(str(control / "id2label.json"), f"{control / 'serving.yaml'}#postprocess.class_names",
                  "--predictions", str(control / "predictions.csv"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["ok"] is True


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    for phase in (evidence.control, evidence.faulted):
        names = {p.name for p in phase.metrics}
        assert set(CASE["observability"]["metrics"]) <= names, set(CASE["observability"]["metrics"]) - names
        assert set(CASE["observability"]["spans"]) <= {s.name for s in phase.spans}
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in CASE["observability"]["metrics"]), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("mismatched_indices", phase="faulted", window="before").max() == 0
    assert evidence.promql("mismatched_indices", phase="faulted", window="during").max() > 0
    assert evidence.promql("mismatched_indices", phase="control").max() == 0
