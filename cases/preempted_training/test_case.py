"""Assertion suite of preempted_training; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
import re
from pathlib import Path

import pytest
import torch
from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
STEPS, EVERY, KEEP = PARAMS["steps"], PARAMS["checkpoint_every"], PARAMS["keep_last"]
MID_STEP, MID_WRITE = (s["params"] for s in CASE["inject"]["local"])
# the newest complete checkpoint when each kill lands
RESUME_AFTER_MID_STEP = MID_STEP["at_step"] // EVERY * EVERY
RESUME_AFTER_MID_WRITE = MID_WRITE["at_step"] - EVERY


def by_attempt(phase, name):
    out: dict[int, list] = {}
    for span in phase.spans_named(name):
        out.setdefault(span.attributes["faultlib.attempt"], []).append(span)
    return out


def losses(phase) -> dict[int, dict[int, float]]:
    return {attempt: {s.attributes["faultlib.step"]: s.attributes["loss"] for s in spans}
            for attempt, spans in by_attempt(phase, "train.step").items()}


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7)


def test_control_raises_no_finding(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    assert [(a["attempt"], a["signal"]) for a in control.attempts] == [(1, None)]
    assert control.summary["resumed_from_step"] == 0
    assert control.summary["accuracy"] >= 0.93
    assert not (evidence.dumps / "control" / "checkpoints" / "partial").exists()


def test_attempts_ended_by_sigkill_at_the_chosen_points(evidence):
    faulted = evidence.faulted
    assert [(a["attempt"], a["exit_code"], a["signal"]) for a in faulted.attempts] == [
        (1, -9, "SIGKILL"), (2, -9, "SIGKILL"), (3, 0, None)]
    faults = sorted(faulted.spans_named("faultlib.fault"), key=lambda s: s.start_ns)
    assert [(f.attributes["faultlib.attempt"], f.attributes["point"], f.attributes["step"]) for f in faults] == [
        (MID_STEP["attempt"], "step", MID_STEP["at_step"]),
        (MID_WRITE["attempt"], "checkpoint.write", MID_WRITE["at_step"])]
    assert all(f.attributes["signal"] == "SIGKILL" and f.attributes["scope"] == "process_group" for f in faults)
    mid_write = faults[1].attributes
    assert 0 < mid_write["bytes_written"] < mid_write["bytes_total"]
    # nothing of the killed step ran: attempt 1 finished step at_step-1 and no later one
    steps = {a: sorted(s.attributes["faultlib.step"] for s in spans)
             for a, spans in by_attempt(faulted, "train.step").items()}
    assert steps[1] == list(range(MID_STEP["at_step"]))
    # attempt 2 died inside the write of checkpoint at_step: that save never finished, earlier ones did
    saves = {a: [s.attributes["step"] for s in spans] for a, spans in by_attempt(faulted, "checkpoint.save").items()}
    assert MID_WRITE["at_step"] not in saves[2] and saves[2][-1] == RESUME_AFTER_MID_WRITE
    assert steps[2][-1] == MID_WRITE["at_step"] - 1
    stderr = (evidence.path / "stderr.txt").read_text()
    assert stderr.count("# faultlib: phase faulted killed by SIGKILL") == 2
    assert "# faultlib phase=faulted attempt=2" in stderr and "# faultlib phase=faulted attempt=3" in stderr


def test_each_restart_resumed_from_the_last_complete_checkpoint(evidence):
    resumes = {a: spans[0].attributes for a, spans in by_attempt(evidence.faulted, "checkpoint.resume").items()}
    assert [resumes[a]["resumed_from_step"] for a in (1, 2, 3)] == [0, RESUME_AFTER_MID_STEP, RESUME_AFTER_MID_WRITE]
    assert max(resumes[2]["checkpoints_found"]) == RESUME_AFTER_MID_STEP
    assert max(resumes[3]["checkpoints_found"]) == RESUME_AFTER_MID_WRITE
    assert MID_WRITE["at_step"] not in resumes[3]["checkpoints_found"], "the half-written checkpoint was published"
    first_steps = {a: min(s.attributes["faultlib.step"] for s in spans)
                   for a, spans in by_attempt(evidence.faulted, "train.step").items()}
    assert first_steps == {1: 0, 2: RESUME_AFTER_MID_STEP, 3: RESUME_AFTER_MID_WRITE}
    resumed = [f for f in evidence.faulted.findings if f.detector == "training_resume"]
    assert [f.location["step"] for f in resumed] == [RESUME_AFTER_MID_STEP, RESUME_AFTER_MID_WRITE]
    assert evidence.faulted.summary["resumed_from_step"] == RESUME_AFTER_MID_WRITE


def test_every_checkpoint_loads_and_the_partial_one_never_became_latest(evidence):
    newest = list(range(STEPS - (KEEP - 1) * EVERY, STEPS + 1, EVERY))
    for phase in (evidence.control.name, evidence.faulted.name):  # both phases' dumps
        directory = evidence.dumps / phase / "checkpoints"
        published = sorted(directory.glob("ckpt-*.pt"))
        assert [int(re.search(r"\d+", p.name).group()) for p in published] == newest
        assert not [p for p in directory.iterdir() if p.name.startswith(".")], "a temporary file was left behind"
        for path in published:
            state = torch.load(path, map_location="cpu", weights_only=True)
            assert state["step"] == int(re.search(r"\d+", path.name).group())
            assert {"model", "optimizer", "schedule", "rng"} <= set(state)
    assert not [f for f in evidence.faulted.findings if f.detector == "checkpoint_integrity"]
    partial = sorted((evidence.dumps / "faulted" / "checkpoints" / "partial").iterdir())
    assert [p.name.split(".tmp-")[0] for p in partial] == [f".ckpt-{MID_WRITE['at_step']:06d}.pt"]
    faults = evidence.faulted.spans_named("faultlib.fault")
    fault = next(s for s in faults if s.attributes["point"] == "checkpoint.write")
    assert partial[0].stat().st_size == fault.attributes["bytes_written"]
    # half a zip archive, the reason it must never be the latest (torch raises OSError or RuntimeError)
    with pytest.raises((OSError, RuntimeError, EOFError)):
        torch.load(partial[0], map_location="cpu", weights_only=True)
    warned = [f for f in evidence.faulted.findings if f.detector == "checkpoint_partial_write"]
    assert [f.location["file"] for f in warned] == [partial[0].name]


def test_resumed_steps_continue_the_loss_curve(evidence):
    curve = losses(evidence.faulted)
    kill_1, kill_2 = MID_STEP["at_step"], MID_WRITE["at_step"]
    # the replayed steps reproduce what the killed attempt computed, batch order and dropout included
    for attempt, first, last in ((2, RESUME_AFTER_MID_STEP, kill_1 - 1), (3, RESUME_AFTER_MID_WRITE, kill_2 - 1)):
        for step in range(first, last + 1):
            assert same(curve[attempt][step], curve[attempt - 1][step]), f"attempt {attempt} step {step}"
    initial = curve[1][0]
    assert curve[2][RESUME_AFTER_MID_STEP] < 0.5 * initial, "resumed at the initial loss: progress was lost"
    assert abs(curve[2][RESUME_AFTER_MID_STEP] - curve[1][kill_1 - 1]) < 0.25 * initial
    # stitched together, the preempted run's loss curve is the uninterrupted control's
    stitched = {step: loss for attempt in sorted(curve) for step, loss in curve[attempt].items()}
    control = losses(evidence.control)[1]
    assert sorted(stitched) == sorted(control) == list(range(STEPS))
    assert all(same(stitched[s], control[s]) for s in range(STEPS))


def test_final_accuracy_within_one_point_of_control(evidence):
    assert abs(evidence.faulted.summary["accuracy"] - evidence.control.summary["accuracy"]) <= 0.01


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    names = {p.name for p in evidence.faulted.metrics}
    assert set(CASE["observability"]["metrics"]) <= names
    assert set(CASE["observability"]["spans"]) <= {s.name for s in evidence.faulted.spans}
    assert evidence.faulted.metric("faultlib_train_resumes_total") == 1  # the surviving process resumed once
    assert evidence.faulted.metric("faultlib_checkpoint_step") == STEPS
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in names), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("training_resumes", phase="faulted").max() >= 1
    assert evidence.promql("training_resumes", phase="control").max() == 0
    assert evidence.promql("resumed_from_step", phase="faulted").max() > 0
