"""Assertion suite of gradscaler_misuse; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
from pathlib import Path

from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
PARAMS = CASE["repro"]["params"]
START = CASE["inject"]["local"][0]["params"]["start_step"]
REPAIRED = START + PARAMS["repair_after"]  # first step the audit's repair acts on
CLIP_LINE = next(i for i, line in enumerate((HERE / "repro.py").read_text().splitlines(), 1)
                 if "clip_grad_norm_(" in line)


def losses(phase) -> dict[int, float]:
    return {s.attributes["faultlib.step"]: s.attributes["loss"] for s in phase.steps()}


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    assert not any(s.attributes["scaled_clip"] or s.attributes["repaired"] for s in control.steps())
    assert control.metric("faultlib_scaled_clips_total") == 0
    assert control.summary["accuracy"] >= 0.9


def test_learning_stalls_with_nothing_nonfinite(evidence):
    control, faulted = losses(evidence.control), losses(evidence.faulted)
    # identical up to the fault: the same seed, batches and updates
    assert all(math.isclose(control[s], faulted[s], rel_tol=1e-6) for s in range(START))
    # over the unrepaired window the loss (10-step means at both ends) falls less than a fifth as much as the control's
    def drop(curve):
        return mean(curve[s] for s in range(START, START + 10)) - mean(curve[s] for s in range(REPAIRED - 10, REPAIRED))
    assert drop(control) > 0 and drop(faulted) < 0.2 * drop(control), f"{drop(faulted)}; {drop(control)}"
    assert mean(faulted[s] for s in range(REPAIRED - 10, REPAIRED)) > 2 * mean(
        control[s] for s in range(REPAIRED - 10, REPAIRED))
    # silent: every loss finite, the loss scale never moved, no step skipped
    assert all(math.isfinite(v) for v in faulted.values())
    assert {s.attributes["loss_scale"] for s in evidence.faulted.steps()} == {65536.0}
    assert evidence.faulted.summary["final_loss_scale"] == evidence.control.summary["final_loss_scale"]


def test_audit_names_the_clip_call(evidence):
    [finding] = evidence.faulted.findings
    assert finding.kind == "clip_scaled_gradients" and finding.detector == "gradscaler"
    assert Path(finding.location["file"]).name == "repro.py" and finding.location["line"] == CLIP_LINE
    assert finding.location["step"] == START and finding.evidence["first_step"] == START
    assert finding.evidence["effective_max_norm"] == PARAMS["max_norm"] / 65536
    assert "unscale_" in finding.evidence["fix"]
    scaled = [s.attributes["faultlib.step"] for s in evidence.faulted.steps() if s.attributes["scaled_clip"]]
    assert scaled == list(range(START, PARAMS["steps"]))


def test_repair_restores_the_control_curve(evidence):
    faulted, control = evidence.faulted, evidence.control
    repaired = [s.attributes["faultlib.step"] for s in faulted.steps() if s.attributes["repaired"]]
    assert repaired == list(range(REPAIRED, PARAMS["steps"]))
    assert abs(faulted.summary["accuracy"] - control.summary["accuracy"]) <= 0.02
    tail_f = mean(v for s, v in losses(faulted).items() if s >= PARAMS["steps"] - 20)
    tail_c = mean(v for s, v in losses(control).items() if s >= PARAMS["steps"] - 20)
    assert tail_f < 1.5 * tail_c + 0.05, f"{tail_f}; {tail_c}"


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []
    assert evidence.faulted.metric("faultlib_scaled_clips_total") == PARAMS["steps"] - START


def test_promql_shows_the_fault(evidence):
    """Scaled clips in a real Prometheus over the run's metrics; lr and loss scale the same in both phases."""
    assert evidence.promql("scaled_clips", phase="faulted", window="before").max() == 0
    assert evidence.promql("scaled_clips", phase="faulted", window="during").max() > 0
    assert evidence.promql("scaled_clips", phase="control").max() == 0
    assert evidence.promql("loss_scale", phase="faulted").min() == evidence.promql("loss_scale", phase="control").min()
    # the lr is not the fault: the schedule is the same step for step (spans), and Prometheus shows it in both phases
    lr = {p.name: {s.attributes["faultlib.step"]: s.attributes["lr"] for s in p.steps()}
          for p in (evidence.control, evidence.faulted)}
    assert lr["control"] == lr["faulted"]
    for phase in ("control", "faulted"):
        assert 0 < evidence.promql("learning_rate", phase=phase).max() <= PARAMS["lr"]
