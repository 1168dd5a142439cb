"""Assertion suite of feature_config_diff; the `evidence` fixture comes from faultlib.cases.fixture."""

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
TRAINING = load_yaml_file(HERE / "features_training.yaml").data
OLD_BINS = next(f["bins"] for f in TRAINING["features"] if f["name"] == "age")
NEW_BINS = next(e["set"]["bins"] for e in SHIM["edits"] if e.get("feature") == "age")


def _batches(phase):
    return phase.steps("serve.batch")


def _step(span):
    return span.attributes["faultlib.step"]


def _bucket(age, edges):
    return sum(age >= e for e in edges)  # numpy.digitize, right=False


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    checks = evidence.control.spans_named("features.check")
    assert len(checks) == 1 and checks[0].attributes["ok"] and checks[0].attributes["presentation_only"]
    assert evidence.control.metric("faultlib_feature_config_checks_total", result="ok") == 1
    assert evidence.control.metric("faultlib_feature_config_findings") == 0
    assert evidence.control.metric("faultlib_feature_predictions_total", changed="true") == 0
    assert evidence.control.summary["changed_live"] == evidence.control.summary["changed_guarded"] == 0
    assert evidence.control.summary["accuracy_live"] == evidence.control.summary["accuracy_training"] >= 0.7
    assert not evidence.control.spans_named("features.attribute")


def test_batches_before_the_drift_are_served_like_the_control(evidence):
    control = {_step(s): s.attributes for s in _batches(evidence.control)}
    before = [s for s in _batches(evidence.faulted) if _step(s) < min(WINDOW)]
    assert before
    for span in before:
        assert span.attributes["changed_live"] == 0
        assert span.attributes["accuracy_live"] == control[_step(span)]["accuracy_live"]
        assert span.attributes["first_after_bp"] == "s1"


def test_predictions_move_under_the_drifted_config(evidence):
    during = [s for s in _batches(evidence.faulted) if _step(s) in WINDOW]
    assert {_step(s) for s in during} == WINDOW
    assert all(s.attributes["first_after_bp"] == "s4" for s in during)  # the edited config was live
    assert all(s.attributes["changed_live"] > 0 for s in during)
    assert all(s.attributes["width_live"] == 13 for s in during)  # same width: nothing failed
    moved = sum(s.attributes["changed_live"] for s in during)
    served = len(during) * CASE["repro"]["params"]["batch_size"]
    assert moved / served >= 0.15, f"only {moved} of {served} predictions moved"
    assert evidence.faulted.summary["accuracy_live"] < evidence.control.summary["accuracy_live"]
    assert evidence.faulted.metric("faultlib_feature_config_findings", window="during") >= 5


def test_the_diff_names_every_change_with_its_key_and_line(evidence):
    findings = [f for f in evidence.faulted.findings if f.detector == "features"]
    kinds = [f.kind for f in findings]
    assert set(kinds) == {"bin_edges_changed", "fill_value_changed", "feature_added", "feature_removed",
                          "positions_shifted", "predictions_changed"}, kinds
    assert all(f.location["step"] == min(WINDOW) for f in findings)
    by_kind = {f.kind: f for f in findings}
    bins = by_kind["bin_edges_changed"]
    assert bins.location["key"] == "features[0].bins" and bins.location["line"] >= 1
    assert bins.evidence["old"] == OLD_BINS and bins.evidence["new"] == NEW_BINS
    assert [m["index"] for m in bins.evidence["moved_edges"]] == [0, 1, 2]
    fill = by_kind["fill_value_changed"]
    assert fill.evidence["feature"] == "bp" and fill.evidence["new"] == 0
    assert fill.location["key"] == "features[3].fill_value"
    assert by_kind["feature_added"].evidence == {"name": "s4", "position": 4, "offset": 8, "width": 1}
    assert by_kind["feature_removed"].evidence["name"] == "s3"
    shifted = {s["name"]: (s["old_offset"], s["new_offset"]) for s in by_kind["positions_shifted"].evidence["shifted"]}
    assert shifted == {"s1": (8, 9), "s2": (9, 10)}
    assert evidence.faulted.metric("faultlib_feature_config_checks_total", result="drift") == 1


def test_attribution_explains_each_moved_prediction(evidence):
    report = json.loads((evidence.dumps / "faulted" / "attribution.json").read_text())
    assert report["groups"] == ["layout", "age.bins", "bp.fill_value"]
    rows = report["changed_rows_detail"]
    assert rows and len(rows) == report["changed"]
    assert all(r["causes"] for r in rows)
    for r in rows:
        if "age.bins" in r["causes"]:
            assert _bucket(r["age"], OLD_BINS) != _bucket(r["age"], NEW_BINS), r
        if "bp.fill_value" in r["causes"]:
            assert r["bp_missing"], r
    every = {i for rows_ in report["rows_by_change"].values() for i in rows_}
    moved_by_bins = set(report["rows_by_change"]["age.bins"])
    moved_by_fill = set(report["rows_by_change"]["bp.fill_value"])
    assert moved_by_fill and report["rows_by_change"]["layout"], f'{report["by_change"]}'
    assert len(every | {r["row"] for r in rows if r["causes"] == ["combined"]}) >= len(rows)
    same_bucket = {r["row"] for r in rows if _bucket(r["age"], OLD_BINS) == _bucket(r["age"], NEW_BINS)}
    assert moved_by_bins.isdisjoint(same_bucket)
    summary = evidence.faulted.summary
    assert summary["attribution_changed"] == report["changed"]
    assert summary["attribution_bp_fill_value"] == len(moved_by_fill)


def test_guarded_path_serves_the_training_configs_predictions(evidence):
    for phase in (evidence.control, evidence.faulted):
        for span in _batches(phase):
            assert span.attributes["changed_guarded"] == 0, f"{phase.name}; {_step(span)}"
        assert phase.summary["accuracy_guarded"] == evidence.control.summary["accuracy_training"]
    assert evidence.faulted.metric("faultlib_feature_predictions_total", config="guarded", changed="true") == 0


def test_service_recovers_after_the_rollback(evidence):
    control = {_step(s): s.attributes for s in _batches(evidence.control)}
    after = [s for s in _batches(evidence.faulted) if _step(s) > max(WINDOW)]
    assert after
    for span in after:
        assert span.attributes["config_ok"] and span.attributes["changed_live"] == 0
        assert span.attributes["accuracy_live"] == control[_step(span)]["accuracy_live"]
    assert [s.attributes["ok"] for s in evidence.faulted.spans_named("features.check")] == [True, False, True]
    assert evidence.faulted.metric("faultlib_feature_config_findings", window="after") == 0


def _check(*args):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", "check", "features", *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_features_cli_on_the_dumped_configs(evidence):
    faulted, control = evidence.dumps / evidence.faulted.name, evidence.dumps / evidence.control.name
    proc = _check(str(faulted / "training.yaml"), str(faulted / "serving-drift.yaml"))
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert [a["name"] for a in out["added"]] == ["s4"] and [r["name"] for r in out["removed"]] == ["s3"]
    assert {(c["feature"], c["key"]) for c in out["changed"]} == {("age", "bins"), ("bp", "fill_value")}
    assert out["encoded_width"] == {"before": 13, "after": 13} and out["order_changed"] == []
    proc = _check(str(control / "training.yaml"), str(control / "serving.yaml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["findings"] == [] and out["presentation_only"] is True


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    for phase in (evidence.control, evidence.faulted):
        names = {p.name for p in phase.metrics}
        assert set(CASE["observability"]["metrics"]) <= names, set(CASE["observability"]["metrics"]) - names
    assert set(CASE["observability"]["spans"]) <= {s.name for s in evidence.faulted.spans}
    assert set(CASE["observability"]["spans"]) - {"features.attribute"} <= {s.name for s in evidence.control.spans}
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in CASE["observability"]["metrics"]), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("config_findings", phase="faulted", window="before").max() == 0
    assert evidence.promql("config_findings", phase="faulted", window="during").max() > 0
    assert evidence.promql("config_findings", phase="control").max() == 0
