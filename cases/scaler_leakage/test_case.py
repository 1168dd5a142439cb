"""Assertion suite of scaler_leakage; the `evidence` fixture comes from faultlib.cases.fixture."""

import json
import os
import subprocess
import sys
from pathlib import Path

from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
WINDOW = set(range(SHIM["start_step"], SHIM["start_step"] + SHIM["steps"]))


def _repeats(phase):
    return phase.steps("cv.repeat")


def _step(span):
    return span.attributes["faultlib.step"]


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    assert evidence.control.metric("faultlib_leaked_rows_total") == 0
    for span in _repeats(evidence.control):
        assert span.attributes["optimism"] == 0.0 and span.attributes["leak_findings"] == 0
        assert span.attributes["evaluations"] == CASE["repro"]["params"]["folds"]  # the monitor did watch


def test_control_is_near_chance(evidence):
    assert evidence.control.summary["mean_experiment"] <= 0.65


def test_repeats_before_the_window_are_honest(evidence):
    control = {_step(s): s.attributes for s in _repeats(evidence.control)}
    before = [s for s in _repeats(evidence.faulted) if _step(s) < min(WINDOW)]
    assert before
    for span in before:
        assert span.attributes["accuracy_experiment"] == control[_step(span)]["accuracy_experiment"]
        assert span.attributes["leak_findings"] == 0 and not span.attributes["hoisted"]


def test_leakage_inflates_the_score(evidence):
    during = [s for s in _repeats(evidence.faulted) if _step(s) in WINDOW]
    assert {_step(s) for s in during} == WINDOW
    for span in during:
        assert span.attributes["hoisted"]
        assert span.attributes["accuracy_experiment"] >= 0.8, f"{span.attributes}"
        assert span.attributes["optimism"] >= 0.2, f"{span.attributes}"
        assert span.attributes["accuracy_reference"] <= 0.7


def test_monitor_reports_both_hoisted_fits(evidence):
    for step in WINDOW:
        found = {f.evidence["estimator"]: f for f in evidence.faulted.findings if f.location.get("step") == step}
        assert set(found) == {"SelectKBest", "StandardScaler"}, step
        assert {f.kind for f in found.values()} == {"fit_outside_cv"}
        assert found["SelectKBest"].severity.value == "error" and found["SelectKBest"].evidence["supervised"]
        assert found["StandardScaler"].severity.value == "warning"
        for finding in found.values():
            assert finding.evidence["models_evaluated"] == CASE["repro"]["params"]["folds"]
            assert finding.evidence["fit_rows"] == CASE["repro"]["params"]["rows"]


def test_findings_only_in_the_window(evidence):
    assert {f.location["step"] for f in evidence.faulted.findings} == WINDOW
    for finding in evidence.faulted.findings:
        assert finding.evidence["overlapping_rows"] == finding.evidence["held_out_rows"]  # every held-out row seen
    rows = CASE["repro"]["params"]["rows"]
    assert evidence.faulted.metric("faultlib_leaked_rows_total") == 2 * rows * len(WINDOW)


def test_repeats_after_the_window_are_honest_again(evidence):
    control = {_step(s): s.attributes for s in _repeats(evidence.control)}
    after = [s for s in _repeats(evidence.faulted) if _step(s) > max(WINDOW)]
    assert after
    for span in after:
        assert span.attributes["accuracy_experiment"] == control[_step(span)]["accuracy_experiment"]
        assert span.attributes["optimism"] == 0.0 and span.attributes["leak_findings"] == 0


def _check(path):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", "check", "leakage", str(path), "--json"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_static_check_finds_the_leaky_script_and_passes_the_repro(evidence):
    proc = _check(HERE / "leaky_experiment.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    lines = (HERE / "leaky_experiment.py").read_text().splitlines()
    by_estimator = {f["evidence"]["estimator"]: f for f in out["findings"]}
    assert set(by_estimator) == {"SelectKBest", "StandardScaler"}
    for name, finding in by_estimator.items():
        assert finding["kind"] == "fit_outside_cv"
        assert finding["location"]["function"] == "prepare"
        assert name in lines[finding["location"]["line"] - 1]
    assert by_estimator["SelectKBest"]["severity"] == "error"
    proc = _check(HERE / "repro.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    for phase in (evidence.control, evidence.faulted):
        names = {p.name for p in phase.metrics}
        assert set(CASE["observability"]["metrics"]) <= names, set(CASE["observability"]["metrics"]) - names
        assert set(CASE["observability"]["spans"]) <= {s.name for s in phase.spans}
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in CASE["observability"]["metrics"]), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("cv_optimism", phase="faulted", window="before").max() == 0
    assert evidence.promql("cv_optimism", phase="faulted", window="during").max() > 0
    assert evidence.promql("cv_optimism", phase="control").max() == 0
