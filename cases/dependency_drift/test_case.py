"""Assertion suite of dependency_drift; the `evidence` fixture comes from faultlib.cases.fixture."""

import argparse
import ast
import json
from importlib import metadata
from pathlib import Path

import pytest
import torch
from packaging.version import Version

from faultlib.fingerprint import collect, diff, dumps, known_changes, load, validate
from faultlib.readers import load_yaml_file, read_text

CASE_DIR = Path(__file__).parent
CASE = load_yaml_file(CASE_DIR / "case.yaml").data
BEFORE = CASE_DIR / "fingerprint-before.json"
TORCH_NOW = metadata.version("torch")


def span(phase, name, **match):
    spans = [s for s in phase.spans_named(name) if all(s.attributes.get(k) == v for k, v in match.items())]
    assert spans, f"no {name} span {match} in {phase.name}"
    return spans[-1].attributes


def checkpoint(evidence, phase):
    return evidence.dumps / phase / "checkpoints" / evidence.phase(phase).summary["checkpoint"]


def cli(capsys, *args):
    """``faultlib ARGS`` in this process (torch is already imported): exit code and stdout."""
    from faultlib.cli.app import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    return exited.value.code, capsys.readouterr().out


def test_control_loads_with_the_default_and_is_silent(evidence, capsys):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    summary = control.summary
    assert summary["default_load"] == "ok" and summary["error"] == ""
    assert summary["bit_identical"] is True and summary["max_abs_diff"] == 0.0
    assert summary["metadata_restored"] is True and summary["accuracy"] >= 0.9
    assert summary["unsafe_globals"] == summary["allowlist"] == []
    assert not control.spans_named("faultlib.fault") and not control.spans_named("checkpoint.scan")
    # the same upgrade is in the control's diff: a tensors-only checkpoint does not care
    drift = span(control, "fingerprint.diff")
    assert drift["torch_now"] == TORCH_NOW and "torch" in drift["changed_packages"]
    assert "torch 2.6.0" in drift["known_changes"]
    saved = torch.load(checkpoint(evidence, "control"), map_location="cpu")  # the default, weights_only=True
    assert isinstance(saved["args"], dict) and isinstance(saved["best_acc"], float)
    assert isinstance(saved["confusion"], torch.Tensor)
    code, out = cli(capsys, "check", "checkpoints", str(checkpoint(evidence, "control").parent), "--json")
    assert code == 0 and json.loads(out)["ok"]
    assert control.metric("faultlib_checkpoint_loads_total", loader="default", result="ok") == 1
    refused = control.metric_series("faultlib_checkpoint_loads_total", result="refused")
    assert refused and all(v == 0 for points in refused.values() for _, v in points)  # initialised, never counted
    assert control.metric("faultlib_reload_max_abs_diff", loader="default") == 0


def test_default_load_refuses_the_legacy_checkpoint(evidence):
    faulted = evidence.faulted
    fault = span(faulted, "faultlib.fault")
    assert fault["faultlib.injector"] == "legacy_checkpoint_objects" and fault["point"] == "checkpoint.save"
    assert sorted(fault["converted"]) == ["args:argparse.Namespace", "best_acc:numpy.float64",
                                          "confusion:numpy.ndarray"]
    types = dict(t.split(":", 1) for t in span(faulted, "checkpoint.save")["types"])
    assert types["args"] == "argparse.Namespace" and types["model"] == "collections.OrderedDict"
    refused = span(faulted, "checkpoint.load", loader="default")
    assert refused["result"] == "refused" and refused["error_type"] == "_pickle.UnpicklingError"
    assert refused["error"].startswith("Weights only load failed") and refused["named"] == "argparse.Namespace"
    assert faulted.summary["default_load"] == "refused"
    # and so does this process's torch, with its own default
    with pytest.raises(Exception, match="Weights only load failed") as info:
        torch.load(checkpoint(evidence, "faulted"), map_location="cpu")
    assert f"{type(info.value).__module__}.{type(info.value).__name__}" == "_pickle.UnpicklingError"


def test_detector_names_the_unsafe_globals(evidence, capsys):
    faulted = evidence.faulted
    path = checkpoint(evidence, "faulted")
    truth = sorted(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))
    assert "argparse.Namespace" in truth and any(n.startswith("numpy") for n in truth)
    unsafe = [f for f in faulted.findings if f.kind == "unsafe_globals"]
    assert [f.detector for f in unsafe] == ["checkpoints"] and unsafe[0].location["file"].endswith(path.name)
    assert unsafe[0].evidence["unsafe_globals"] == truth == faulted.summary["unsafe_globals"]
    assert span(faulted, "checkpoint.scan")["unsafe_globals"] == truth
    code, out = cli(capsys, "check", "checkpoints", str(path.parent), "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"] and report["newest_loadable"] is None
    assert [(f["kind"], f["unsafe_globals"]) for f in report["files"]] == [("unsafe_globals", truth)]


def test_fingerprint_diff_names_the_cause(evidence):
    faulted = evidence.faulted
    causes = [f for f in faulted.findings if f.kind == "known_change_crossed"]
    assert len(causes) == 1, f"{[f.kind for f in faulted.findings]}"
    cause = causes[0]
    assert cause.detector == "fingerprint" and cause.severity.value == "error" and cause.location == {"key": "torch"}
    recorded = load(BEFORE)["packages"]["torch"]
    ev = cause.evidence
    assert (ev["package"], ev["old"], ev["new"], ev["version"]) == ("torch", recorded, TORCH_NOW, "2.6.0")
    assert ev["direction"] == "upgrade" and "weights_only" in ev["summary"]
    assert ev["reference"].startswith("https://") and ev["reference"] in cause.message
    assert ev["error"].startswith("Weights only load failed") and ev["unsafe_globals"] == faulted.summary["unsafe_globals"]
    # the same diff, computed here from the shipped file and this environment
    drift = diff(load(BEFORE), collect())
    assert drift.packages["torch"] == (recorded, TORCH_NOW) and drift.selects_all()
    assert [(c.package, c.version, c.reference) for c in known_changes(drift) if c.package == "torch"] == [
        ("torch", ev["version"], ev["reference"])]
    assert span(faulted, "fingerprint.diff")["torch_before"] == recorded


def test_allowlisted_load_restores_the_model_bit_identically(evidence):
    summary = evidence.faulted.summary
    assert summary["bit_identical"] is True and summary["max_abs_diff"] == 0.0
    assert summary["metadata_restored"] is True
    # exactly the globals torch named: the detector's static list plus the classes named while loading
    assert sorted(summary["allowlist"]) == sorted(summary["unsafe_globals"] + summary["named_at_load"])
    assert all(n.startswith("numpy.dtypes.") for n in summary["named_at_load"])
    refusals = [span_.attributes for span_ in evidence.faulted.spans_named("checkpoint.load")
                if span_.attributes["loader"] == "allowlist" and span_.attributes["result"] == "refused"]
    assert [r["named"] for r in refusals] == summary["named_at_load"]
    # the allowlist works here too, with the default weights_only=True and nothing else allowed
    path = checkpoint(evidence, "faulted")
    import repro  # the case's repro module: its TRUSTED table maps the names to the objects
    with torch.serialization.safe_globals([repro.TRUSTED[n] for n in summary["allowlist"]]):
        state = torch.load(path, map_location="cpu")
    assert isinstance(state["args"], argparse.Namespace) and float(state["best_acc"]) == summary["accuracy"]
    # no torch.load in the repro overrides the default (weights_only=False least of all)
    calls = [n for n in ast.walk(ast.parse(read_text(CASE_DIR / "repro.py"))) if isinstance(n, ast.Call)]
    assert not [k.arg for c in calls for k in c.keywords if k.arg == "weights_only"]


def test_recorded_fingerprint_is_canonical_and_older():
    text = read_text(BEFORE)
    recorded = load(BEFORE)
    assert dumps(validate(json.loads(text))) == text, "fingerprint-before.json is not canonical: regenerate it"
    assert recorded["format"] == 1 and recorded["torch"]["version"] == recorded["packages"]["torch"]
    assert Version(recorded["packages"]["torch"]) < Version("2.6.0") <= Version(TORCH_NOW)


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    faulted = evidence.faulted
    names = {p.name for p in faulted.metrics}
    assert set(CASE["observability"]["metrics"]) <= names
    assert set(CASE["observability"]["spans"]) <= {s.name for s in faulted.spans}
    loads = faulted.spans_named("checkpoint.load")
    assert len(loads) == 2 + len(faulted.summary["named_at_load"])  # default, each refused retry, the one that works
    assert faulted.metric("faultlib_checkpoint_loads_total", loader="default", result="refused") == 1
    assert faulted.metric("faultlib_checkpoint_loads_total", loader="allowlist", result="ok") == 1
    assert faulted.metric("faultlib_checkpoint_unsafe_globals") == len(faulted.summary["unsafe_globals"])
    assert faulted.metric("faultlib_known_changes_crossed", package="torch") == 1
    assert faulted.metric("faultlib_reload_max_abs_diff", loader="allowlist") == 0
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in names), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("default_loads_refused", phase="faulted", window="during").max() >= 1
    assert evidence.promql("unsafe_globals", phase="faulted", window="during").max() >= 1
    # the control saves a plain state_dict: its series are there (initialised to 0) and stay 0
    assert evidence.promql("default_loads_refused", phase="control").max() == 0
    assert evidence.promql("unsafe_globals", phase="control").max() == 0
