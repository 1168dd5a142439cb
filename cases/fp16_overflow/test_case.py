"""Assertion suite of fp16_overflow; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
FIRST, LAST = SHIM["start_step"], SHIM["start_step"] + SHIM["steps"] - 1


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    assert not any(s.attributes["overflow"] for s in evidence.control.steps())
    assert evidence.control.metric("faultlib_overflow_steps_total") == 0


def test_control_reaches_normal_accuracy(evidence):
    assert evidence.control.summary["accuracy"] >= 0.93


def test_sentinel_fires_at_the_injected_step(evidence):
    sentinel = [f for f in evidence.faulted.findings if f.detector == "fp16_overflow"]
    assert sentinel, "the sentinel raised no finding in the faulted run"
    assert sentinel[0].location["step"] == FIRST
    overflow_steps = {s.attributes["faultlib.step"] for s in evidence.faulted.steps() if s.attributes["overflow"]}
    assert FIRST in overflow_steps
    assert overflow_steps <= set(range(FIRST, LAST + 1)), f"overflow outside the fault window: {overflow_steps}"
    assert evidence.faulted.metric("faultlib_overflow_steps_total", window="during") == len(overflow_steps)


def test_poisoned_updates_are_skipped(evidence):
    for span in evidence.faulted.steps():
        if span.attributes["overflow"]:
            assert span.attributes["skipped"], f"step {span.attributes['faultlib.step']} applied a poisoned update"


def test_breaker_resets_scale_falls_back_and_recovers(evidence):
    actions = {s.attributes["faultlib.step"]: s.attributes["breaker_action"] for s in evidence.faulted.steps()}
    assert actions[FIRST + 1] == "reset_scale"           # 2 consecutive overflows
    fallback = [step for step, a in actions.items() if a == "fallback_fp32"]
    assert fallback == [FIRST + 4]                        # the 5th overflow within 100 steps
    resumed = [step for step, a in actions.items() if a == "resume_amp"]
    assert len(resumed) == 1 and resumed[0] > LAST        # back to AMP after the fault, once stable
    # fp32 steps inside the fault window are healthy: that is what the fallback buys
    fp32_in_window = [s for s in evidence.faulted.steps()
                      if not s.attributes["amp"] and FIRST <= s.attributes["faultlib.step"] <= LAST]
    assert fp32_in_window and not any(s.attributes["overflow"] for s in fp32_in_window)
    summary = evidence.faulted.summary
    assert summary["amp_enabled_at_end"] is True
    assert summary["final_loss_scale"] >= 1024, "the loss scale collapsed"


def test_weights_and_losses_stay_finite(evidence):
    for phase in (evidence.control, evidence.faulted):
        assert phase.summary["weights_finite"] is True
        for span in phase.steps():
            if not span.attributes["overflow"]:
                assert math.isfinite(span.attributes["loss"])


def test_final_accuracy_within_two_points_of_control(evidence):
    assert abs(evidence.faulted.summary["accuracy"] - evidence.control.summary["accuracy"]) <= 0.02


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("overflow_rate", phase="faulted", window="before").max() == 0
    assert evidence.promql("overflow_rate", phase="faulted", window="during").max() > 0
    assert evidence.promql("overflow_rate", phase="control").max() == 0
    assert evidence.promql("amp_enabled", phase="faulted", window="during").min() == 0
    assert evidence.promql("amp_enabled", phase="control").min() == 1
    # the loss scale dips during the fault (GradScaler halves it), the breaker keeps the dip shallow
    assert 65536 / 8 <= evidence.promql("loss_scale", phase="faulted", window="during").min() < 65536
    assert evidence.promql("loss_scale", phase="control").min() == 65536
