"""Assertion suite of resume_state_incomplete; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
DROP, KILL = (s["params"] for s in CASE["inject"]["local"])
EVERY, STEPS = PARAMS["checkpoint_every"], PARAMS["steps"]
RESUMED = KILL["at_step"] // EVERY * EVERY  # the newest checkpoint when the kill lands
NAMED = {"schedule": "scheduler", "scaler": "grad_scaler"}


def curve(phase, attempt=None, name="train.step") -> dict[int, dict]:
    return {s.attributes["faultlib.step"]: s.attributes for s in phase.spans_named(name)
            if attempt is None or s.attributes.get("faultlib.attempt") == attempt}


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    assert [(a["attempt"], a["signal"]) for a in control.attempts] == [(1, None)]
    assert control.summary["missing"] == [] and control.summary["accuracy"] >= 0.9
    assert control.spans_named("resume.unmitigated") == []


def test_missing_state_named_before_the_preemption(evidence):
    lacking = [f for f in evidence.faulted.findings if f.kind == "checkpoint_lacks_state"]
    first = [f for f in lacking if f.location["step"] == EVERY]  # the checkpoint of step EVERY, attempt 1
    assert {f.evidence["object"]: f.evidence["object_kind"] for f in first} == NAMED
    assert set(DROP["drop"]) == set(NAMED)
    assert all(f.location["file"] == f"ckpt-{EVERY:06d}.pt" for f in first)
    assert all(f.kind == "checkpoint_lacks_state" for f in evidence.faulted.findings)  # nothing else, no false alarm
    assert EVERY < KILL["at_step"]
    assert sorted({f.location["step"] for f in lacking}) == [EVERY, RESUMED]  # and again at the resume


def test_preempted_at_130_and_resumed_from_125(evidence):
    faulted = evidence.faulted
    assert [(a["attempt"], a["signal"]) for a in faulted.attempts] == [(1, "SIGKILL"), (2, None)]
    assert max(curve(faulted, 1)) == KILL["at_step"] - 1
    assert min(curve(faulted, 2)) == RESUMED
    assert faulted.summary["resumed_from_step"] == RESUMED and sorted(faulted.summary["missing"]) == sorted(NAMED)


def test_unmitigated_resume_diverges_from_the_straight_run(evidence):
    control = curve(evidence.control)
    naive = curve(evidence.faulted, name="resume.unmitigated")
    assert sorted(naive) == list(range(RESUMED, RESUMED + PARAMS["probe_steps"]))
    # the first resumed step still uses the restored optimizer's lr; the restarted schedule moves it off the curve
    lr_off = [s for s in naive if not same(naive[s]["lr"], control[s]["lr"])]
    assert lr_off and lr_off[0] == RESUMED + 1, lr_off[:3]
    assert max(naive[s]["lr"] / control[s]["lr"] for s in naive) > 1.2
    assert naive[RESUMED]["loss_scale"] == 65536.0 != control[RESUMED]["loss_scale"]
    assert naive[RESUMED]["first_ids"] == control[RESUMED]["first_ids"]  # same data: the generator was saved
    loss_off = [s for s in naive if not same(naive[s]["loss"], control[s]["loss"])]
    assert loss_off and loss_off[0] <= RESUMED + 2


def test_mitigated_resume_matches_the_straight_run(evidence):
    control, resumed = curve(evidence.control), curve(evidence.faulted, 2)
    assert sorted(resumed) == list(range(RESUMED, STEPS))
    for step, attrs in resumed.items():
        for key in ("lr", "loss_scale", "loss"):
            assert same(attrs[key], control[step][key]), f"{step}; {key}; {attrs[key]}; {control[step][key]}"
        assert attrs["first_ids"] == control[step]["first_ids"]
    assert evidence.faulted.summary["accuracy"] == evidence.control.summary["accuracy"]


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    names = {p.name for p in evidence.faulted.metrics}
    assert set(CASE["observability"]["metrics"]) <= names
    assert set(CASE["observability"]["spans"]) <= {s.name for s in evidence.faulted.spans}
    assert evidence.faulted.metric("faultlib_checkpoint_missing_objects") == len(NAMED)
    assert evidence.control.metric("faultlib_checkpoint_missing_objects") == 0


def test_promql_shows_the_fault(evidence):
    """Missing state and a resume in a real Prometheus over the run's metrics; the control stays quiet."""
    assert evidence.promql("missing_state", phase="faulted").max() == len(NAMED)
    assert evidence.promql("missing_state", phase="control").max() == 0
    assert evidence.promql("training_resumes", phase="faulted").max() >= 1
    assert evidence.promql("training_resumes", phase="control").max() == 0
    # the loss scale grew past its initial 65536 in both phases: the state a resume without the scaler loses
    assert evidence.promql("loss_scale", phase="control").max() > 65536
    assert evidence.promql("loss_scale", phase="faulted").max() > 65536
    assert evidence.faulted.metric("faultlib_loss_scale") == evidence.control.metric("faultlib_loss_scale")
    assert evidence.faulted.metric("faultlib_lr") == evidence.control.metric("faultlib_lr")
