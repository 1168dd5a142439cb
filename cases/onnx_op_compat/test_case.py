"""Assertion suite of onnx_op_compat; the `evidence` fixture comes from faultlib.cases.fixture."""

import json
import os
import subprocess
import sys
from pathlib import Path

import onnx
from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
FAULT_OPSET = CASE["inject"]["local"][0]["params"]["opset"]
TARGET = PARAMS["target"]
TARGET_OPSET, TARGET_IR = 19, 9  # triton==23.12 ships onnxruntime 1.16.3: ai.onnx 19, IR 9
ATOL, RTOL = 1e-5, 1e-3
FAULT_KINDS = {"model_opset_unsupported", "ir_version_unsupported", "op_unsupported_by_target"}


def _onnx(phase):
    return [f for f in phase.findings if f.detector == "onnx"]


def _checks(phase, stage):
    return [s for s in phase.spans_named("onnx.check") if s.attributes["stage"] == stage]


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok"
    assert control.findings == []
    assert [s.attributes["ok"] for s in control.spans_named("onnx.check")] == [True]
    assert control.spans_named("onnx.fix") == []
    assert control.summary["exported_opset"] == PARAMS["opset"] and control.summary["fix_method"] == "none"
    assert control.metric("faultlib_onnx_gate_checks_total", result="ok") == 1


def test_control_serves_what_torch_computes(evidence):
    summary = evidence.control.summary
    assert summary["accuracy_torch"] >= 0.93
    assert summary["accuracy_onnx"] == summary["accuracy_torch"]
    assert summary["max_abs_error"] <= 1e-4 and summary["outputs_match"] is True


def test_gate_reports_opset_ir_and_the_gelu_node(evidence):
    faulted = evidence.faulted
    assert faulted.status == "ok", "the faulted phase must end cleanly"
    faults = faulted.spans_named("faultlib.fault")
    assert faults and faults[0].attributes["opset"] == FAULT_OPSET and faults[0].attributes["configured_opset"] == 17
    exported = onnx.load(str(evidence.dumps / "faulted" / "model.onnx"))
    assert {o.domain: o.version for o in exported.opset_import}[""] == FAULT_OPSET
    assert exported.ir_version > TARGET_IR
    findings = _onnx(faulted)
    assert {f.kind for f in findings} == FAULT_KINDS, f"{[f.kind for f in findings]}"
    assert all(f.severity.value == "error" for f in findings)
    by_kind = {f.kind: f for f in findings}
    assert by_kind["model_opset_unsupported"].evidence == {"opset": FAULT_OPSET, "target_opset": TARGET_OPSET,
                                                           "domain": "ai.onnx"}
    assert by_kind["ir_version_unsupported"].evidence["target_ir_version"] == TARGET_IR
    gelu = [f for f in findings if f.kind == "op_unsupported_by_target"]
    gelu_nodes = [n.name for n in exported.graph.node if n.op_type == "Gelu"]
    assert [f.location["op"] for f in gelu] == ["Gelu"] and [f.location["node"] for f in gelu] == gelu_nodes
    assert gelu[0].evidence["schema_version"] == 20 and gelu[0].evidence["older_versions"] == []
    assert [s.attributes["ok"] for s in _checks(faulted, "exported")] == [False]
    assert faulted.metric("faultlib_onnx_findings_total", stage="exported") == 3
    assert faulted.metric("faultlib_onnx_model_opset", stage="exported") == FAULT_OPSET


def test_version_converter_cannot_go_below_gelu_20(evidence):
    fix = evidence.faulted.spans_named("onnx.fix")
    assert len(fix) == 1 and fix[0].attributes["method"] == "reexport"
    assert "No Previous Version of Gelu" in fix[0].attributes["converter_error"]
    assert [name for name, _ in fix[0].events] == ["version_converter.failed"]
    assert evidence.faulted.metric("faultlib_onnx_fixes_total", method="reexport") == 1


def test_fixed_model_passes_the_gate_at_the_target_opset(evidence):
    fixed = onnx.load(str(evidence.dumps / "faulted" / "model_fixed.onnx"))
    assert {o.domain: o.version for o in fixed.opset_import}[""] == TARGET_OPSET
    assert fixed.ir_version <= TARGET_IR
    ops = {n.op_type for n in fixed.graph.node}
    assert "Gelu" not in ops and "Erf" in ops  # torch decomposed GELU
    assert [s.attributes["ok"] for s in _checks(evidence.faulted, "fixed")] == [True]
    summary = evidence.faulted.summary
    assert summary["deployed"] == "model_fixed.onnx" and summary["deployed_opset"] == TARGET_OPSET
    assert evidence.faulted.metric("faultlib_onnx_gate_checks_total", stage="fixed", result="ok") == 1


def test_every_served_batch_matches_torch(evidence):
    for phase in (evidence.control, evidence.faulted):
        batches = phase.steps("serve.batch")
        assert batches and sum(s.attributes["rows"] for s in batches) == phase.summary["served"]
        for span in batches:
            assert span.attributes["max_abs_error"] <= 1e-4, f"{span.attributes}"
            assert span.attributes["same_predictions"] is True
        assert phase.summary["outputs_match"] is True
        assert phase.summary["accuracy_onnx"] == phase.summary["accuracy_torch"]
    assert evidence.faulted.summary["accuracy_torch"] == evidence.control.summary["accuracy_torch"]


def _check(*args):
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "faultlib", "check", "onnx", *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_onnx_cli_on_the_dumped_files(evidence):
    faulted = evidence.dumps / "faulted"
    compare = ["--compare-torch", f"{faulted / 'torch_model.py'}:build", "--input", str(faulted / "sample.npy")]
    proc = _check(str(faulted / "model.onnx"), "--target", TARGET, *compare)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert {f["kind"] for f in out["findings"]} == FAULT_KINDS
    assert out["target"]["max_opset"]["ai.onnx"] == TARGET_OPSET and out["target"]["runtime_version"] == "1.16.3"
    assert out["fix"]["opset"] == TARGET_OPSET and out["fix"]["version_converter"]["ok"] is False
    assert out["comparison"]["ok"] is True  # the installed onnxruntime runs opset 22 and computes what torch does
    proc = _check(str(faulted / "model_fixed.onnx"), "--target", TARGET, *compare)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["findings"] == [] and out["fix"] is None
    comparison = out["comparison"]
    assert comparison["max_abs_error"] <= 1e-4 and comparison["max_rel_error"] <= RTOL
    assert comparison["input"]["shape"] == [evidence.faulted.summary["served"], 30]
    assert comparison["max_abs_error"] == evidence.faulted.summary["max_abs_error"]


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    for phase in (evidence.control, evidence.faulted):
        names = {p.name for p in phase.metrics}
        assert set(CASE["observability"]["metrics"]) <= names, set(CASE["observability"]["metrics"]) - names
        assert set(CASE["observability"]["spans"]) <= {s.name for s in phase.spans}
    assert evidence.faulted.spans_named("onnx.fix")
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in CASE["observability"]["metrics"]), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("opset_headroom", phase="faulted", window="during").max() < 0
    assert evidence.promql("opset_headroom", phase="control").min() >= 0
    assert evidence.promql("incompatibilities", phase="faulted", window="during").max() > 0
    assert evidence.promql("incompatibilities", phase="control").max() == 0
