"""Assertion suite of state_dict_mismatch; the `evidence` fixture comes from faultlib.cases.fixture."""

import json
from pathlib import Path

import pytest
import torch
import yaml

CASE_DIR = Path(__file__).parent
CASE = yaml.safe_load((CASE_DIR / "case.yaml").read_text())
PREFIX = "_orig_mod.module."


def span(phase, name):
    spans = phase.spans_named(name)
    assert spans, f"no {name} span in {phase.name}"
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


def test_control_is_silent_and_loads_everywhere(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    summary = control.summary
    assert summary["trained_accuracy"] >= 0.9
    assert not summary["first_key"].startswith(("module.", "_orig_mod."))
    assert summary["strict_ok"] is True
    assert summary["strict_false_max_abs_diff"] == 0.0 and summary["bit_identical"] is True
    check = span(control, "state_dict.check")
    assert check["remap_from"] == [] and check["before_missing"] == check["before_unexpected"] == 0
    assert check["optimizer_order_ok"] is True
    assert not control.spans_named("faultlib.fault")


def test_faulted_checkpoint_carries_the_wrapper_prefixes(evidence):
    faulted = evidence.faulted
    saved = span(faulted, "checkpoint.save")
    assert saved["first_key"].startswith(PREFIX)
    fault = span(faulted, "faultlib.fault")
    assert fault["faultlib.injector"] == "checkpoint_wrappers" and fault["prefix"] == PREFIX
    assert fault["keys"] == saved["keys"] == faulted.summary["keys"]
    loaded = span(faulted, "checkpoint.load")
    assert loaded["strict_ok"] is False and "Error(s) in loading state_dict" in loaded["strict_error"]
    # strict=False "succeeds": every key missing and unexpected, the serving model stays randomly initialised
    assert loaded["missing"] == loaded["unexpected"] == saved["keys"]
    assert faulted.summary["strict_false_max_abs_diff"] > 1.0
    assert faulted.summary["strict_false_accuracy"] < 0.3 < faulted.summary["trained_accuracy"]


def test_detector_finds_the_state_dict_and_the_remap(evidence):
    faulted = evidence.faulted
    check = span(faulted, "state_dict.check")
    assert check["state_dict_location"] == "model"
    assert check["remap_from"] == [PREFIX] and check["remap_to"] == [""]
    assert check["before_missing"] == check["before_unexpected"] == faulted.summary["keys"]
    assert (check["missing"], check["unexpected"], check["shape_mismatch"]) == (0, 0, 0)
    assert check["renamed"] == faulted.summary["keys"] and check["mapping_injective"] is True
    assert check["optimizer_order_ok"] is True
    kinds = [f.kind for f in faulted.findings]
    assert kinds == ["wrapper_prefix"], kinds
    rule = faulted.findings[0].evidence["rule"]
    assert (rule["kind"], rule["from"], rule["to"], rule["keys"]) == ("prefix", PREFIX, "", faulted.summary["keys"])
    assert "torch.compile" in rule["cause"] and "DataParallel" in rule["cause"]


def test_remapped_load_is_bit_identical(evidence):
    for phase in (evidence.control, evidence.faulted):
        summary = phase.summary
        assert summary["bit_identical"] is True and summary["safe_load_max_abs_diff"] == 0.0, phase.name
        assert summary["safe_load_accuracy"] == summary["trained_accuracy"]
    assert span(evidence.faulted, "checkpoint.safe_load")["rules"] == [f"{PREFIX}->"]
    assert span(evidence.control, "checkpoint.safe_load")["rules"] == []


def test_resumed_training_matches_the_original(evidence):
    steps = CASE["repro"]["params"]["resume_steps"]
    for phase in (evidence.control, evidence.faulted):
        assert phase.summary["resume_max_abs_diff"] == 0.0, phase.name
        assert len(phase.spans_named("resume.step")) == steps


def test_every_checkpoint_loads_weights_only_and_the_cli_agrees(evidence, capsys):
    for phase in (evidence.control.name, evidence.faulted.name):  # both phases' dumps
        directory = evidence.dumps / phase / "checkpoints"
        files = sorted(directory.iterdir())
        assert [f.name for f in files] == [evidence.phase(phase).summary["checkpoint"]], "a temporary file was left"
        state = torch.load(files[0], map_location="cpu", weights_only=True)
        assert {"model", "optimizer", "step"} <= set(state)
        code, out = cli(capsys, "check", "checkpoints", str(directory), "--json")
        report = json.loads(out)
        assert code == 0 and report["ok"] and report["newest_loadable"]["file"] == str(files[0])
    model = f"{CASE_DIR / 'model.py'}:build"
    code, out = cli(capsys, "check", "state-dict", str(checkpoint(evidence, "control")), "--model", model, "--json")
    assert code == 0 and json.loads(out)["findings"] == []
    code, out = cli(capsys, "check", "state-dict", str(checkpoint(evidence, "faulted")), "--model", model, "--json")
    report = json.loads(out)
    assert code == 1 and [r["from"] for r in report["remap"]] == [PREFIX]
    assert report["state_dict_location"] == "model" and report["missing"] == report["unexpected"] == []
    assert report["before"] == {"missing": evidence.faulted.summary["keys"],
                                "unexpected": evidence.faulted.summary["keys"]}
    # the two checkpoints against each other: the same remap, without a model
    code, out = cli(capsys, "check", "state-dict", str(checkpoint(evidence, "faulted")),
                    "--reference", str(checkpoint(evidence, "control")), "--json")
    assert code == 1 and [r["from"] for r in json.loads(out)["remap"]] == [PREFIX]


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    faulted, control = evidence.faulted, evidence.control
    names = {p.name for p in faulted.metrics}
    assert set(CASE["observability"]["metrics"]) <= names
    assert set(CASE["observability"]["spans"]) <= {s.name for s in faulted.spans}
    keys = faulted.summary["keys"]
    assert faulted.metric("faultlib_state_dict_keys_missing", stage="as_saved") == keys
    assert faulted.metric("faultlib_state_dict_keys_missing", stage="remapped") == 0
    assert control.metric("faultlib_state_dict_keys_missing", stage="as_saved") == 0
    assert faulted.metric("faultlib_state_dict_remap_rules") == 1
    assert control.metric("faultlib_state_dict_remap_rules") == 0
    assert faulted.metric("faultlib_checkpoint_loads_total", loader="strict", outcome="error") == 1
    assert faulted.metric("faultlib_checkpoint_loads_total", loader="safe_load", outcome="ok") == 1
    assert faulted.metric("faultlib_reload_max_abs_diff", loader="safe_load") == 0
    assert faulted.metric("faultlib_checkpoints_unloadable") == 0
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in names), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("keys_missing_as_saved", phase="faulted", window="during").max() > 0
    assert evidence.promql("keys_missing_after_remap", phase="faulted", window="during").max() == 0
    assert evidence.promql("keys_missing_as_saved", phase="control").max() == 0
