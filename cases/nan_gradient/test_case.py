"""Assertion suite of nan_gradient; the `evidence` fixture comes from faultlib.cases.fixture."""

import importlib.util
import math
from pathlib import Path

import torch

from faultlib.detect import locate
from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
WINDOW = set(range(SHIM["start_step"], SHIM["start_step"] + SHIM["steps"]))


def _repro_module():
    spec = importlib.util.spec_from_file_location("nan_gradient_repro", HERE / "repro.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sqrt_line() -> int:
    lines = (HERE / "repro.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if ".sqrt()" in line and "norm =" in line)


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    assert evidence.control.metric("faultlib_nonfinite_grad_steps_total") == 0


def test_forward_stays_finite_while_gradients_are_nan(evidence):
    faulted = [s for s in evidence.faulted.steps() if s.attributes["nonfinite"]]
    assert faulted
    assert all(math.isfinite(s.attributes["loss"]) for s in faulted)


def test_sentinel_fires_exactly_in_the_fault_window(evidence):
    fired = {f.location["step"] for f in evidence.faulted.findings if f.detector == "gradient_sentinel"}
    assert fired == WINDOW
    assert evidence.faulted.metric("faultlib_nonfinite_grad_steps_total", window="during") == len(WINDOW)


def test_locator_names_module_op_and_line(evidence):
    located = [f for f in evidence.faulted.findings if f.detector == "nan_locator"]
    assert {f.location["step"] for f in located} == WINDOW
    for finding in located:
        assert finding.location["phase"] == "backward"
        assert finding.location["module"] == "norm"
        assert finding.location["op"] == "SqrtBackward0"
        # the node and the aten op it ran (grad / (2 * sqrt(s)) at 0 / 0), labelled alike in message and evidence
        assert finding.evidence["autograd_node"] == "SqrtBackward0" and finding.evidence["aten_op"] == "aten::div"
        assert "autograd node SqrtBackward0, aten op aten::div" in finding.message
        assert "in module norm (repro.py:" in finding.message
        assert Path(finding.location["file"]).name == "repro.py" and finding.location["line"] == _sqrt_line()
        assert finding.evidence["tensor"]["nan"] == SHIM["rows"]  # one NaN per blank row


def test_dump_replays_the_same_nan(evidence):
    dumps = sorted((evidence.dumps / "faulted").glob("step*.pt"))
    assert len(dumps) == len(WINDOW)
    dump = torch.load(dumps[0], weights_only=True)
    assert dump["step"] == min(WINDOW) and dump["event"]["op"] == "SqrtBackward0"
    assert dump["event"]["aten_op"] == "aten::div"
    x, y = dump["batch"]
    assert bool((x[: SHIM["rows"]] == 0).all()), "the dump holds the blank rows the model saw"
    model = _repro_module().build_model(CASE["repro"]["params"]["hidden"])
    model.load_state_dict(dump["model_state"])
    event = locate(lambda: torch.nn.functional.cross_entropy(model(x), y).backward())
    assert event is not None
    assert (event.phase, event.module, event.op, event.aten_op) == ("backward", "norm", "SqrtBackward0", "aten::div")
    assert not any(math.isnan(v) for v in dump["model_state"]["fc1.weight"].flatten().tolist())


def test_poisoned_updates_skipped_and_weights_finite(evidence):
    for span in evidence.faulted.steps():
        assert span.attributes["skipped"] == (span.attributes["faultlib.step"] in WINDOW)
    assert evidence.faulted.summary["weights_finite"] is True
    assert abs(evidence.faulted.summary["accuracy"] - evidence.control.summary["accuracy"]) <= 0.02


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("nonfinite_rate", phase="faulted", window="before").max() == 0
    assert evidence.promql("nonfinite_rate", phase="faulted", window="during").max() > 0
    assert evidence.promql("nonfinite_rate", phase="control").max() == 0
