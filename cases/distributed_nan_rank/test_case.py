"""Assertion suite of distributed_nan_rank; the `evidence` fixture comes from faultlib.cases.fixture."""

import math
from pathlib import Path

from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
SHIM = CASE["inject"]["local"][0]["params"]
RANKS = range(CASE["repro"]["world"]["ranks"])


def _line(text: str) -> int:
    lines = (HERE / "repro.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _per_rank(phase, name: str) -> dict[int, float]:
    return {r: phase.metric(name, rank=r) for r in RANKS}


def _steps(phase, rank: int):
    return [s for s in phase.steps() if s.attributes.get("rank") == rank]


def test_control_is_silent(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    for name in ("faultlib_nonfinite_local_steps_total", "faultlib_nonfinite_received_total",
                 "faultlib_skipped_steps_total", "faultlib_dropped_samples_total"):
        assert set(_per_rank(control, name).values()) == {0}, name
    assert control.summary["first_rank"] == -1


def test_detector_names_the_producing_rank_and_op(evidence):
    merged = [f for f in evidence.faulted.findings if f.kind == "nan_rank"]
    assert len(merged) == 1, f"{evidence.faulted.findings}"
    found = merged[0]
    assert found.evidence["first_rank"] == SHIM["rank"]
    assert found.location["step"] >= SHIM["start_step"]
    # the poisoned input reaches the first op of the model: fc1's matrix product, called from the repro's forward
    assert (found.location["module"], found.location["op"]) == ("fc1", "aten::addmm")
    roles = {r["rank"]: r for r in found.evidence["ranks"]}
    assert roles[SHIM["rank"]]["role"] == "producer" and roles[SHIM["rank"]]["received"] is None
    other = roles[1 - SHIM["rank"]]
    assert other["role"] == "received" and other["received"]["op"] == "all_reduce"
    assert other["received"]["step"] == found.location["step"]
    assert other["received"]["seq"] == roles[SHIM["rank"]]["sent"]["seq"]  # the same collective on both ranks
    assert f"rank {SHIM['rank']} produced" in found.message and "received it through all_reduce seq" in found.message
    assert found.evidence["source"] == "input"  # not born in an op: already in rank 1's batch
    assert Path(found.location["file"]).name == "repro.py" and found.location["line"] == _line("first_consumer(")
    assert not [f for f in evidence.faulted.findings if f.detector == "nan_locator"]  # no op made it


def test_the_value_reached_every_rank(evidence):
    local = _per_rank(evidence.faulted, "faultlib_nonfinite_local_steps_total")
    assert local[0] == local[1] > 0  # every rank saw non-finite gradients at the same steps
    received = _per_rank(evidence.faulted, "faultlib_nonfinite_received_total")
    assert received[1 - SHIM["rank"]] > 0 and received[SHIM["rank"]] == 0


def test_every_rank_skips_the_same_steps(evidence):
    skipped = {r: {s.attributes["faultlib.step"] for s in _steps(evidence.faulted, r) if s.attributes["skipped"]}
               for r in RANKS}
    assert skipped[0] == skipped[1] and skipped[0]
    poisoned = {s.attributes["faultlib.step"] for s in _steps(evidence.faulted, SHIM["rank"])
                if s.attributes["bad_samples"]}
    assert skipped[0] == poisoned and min(poisoned) >= SHIM["start_step"]
    assert set(_per_rank(evidence.faulted, "faultlib_skipped_steps_total").values()) == {len(poisoned)}


def test_bad_samples_dropped_and_accuracy_kept(evidence):
    faulted, control = evidence.faulted, evidence.control
    dropped = _per_rank(faulted, "faultlib_dropped_samples_total")
    assert 0 < dropped[SHIM["rank"]] <= SHIM["samples"] and dropped[1 - SHIM["rank"]] == 0
    assert faulted.summary["dropped_samples"] == dropped[SHIM["rank"]]
    # a dropped sample is never drawn again: the last poisoned step is followed by clean ones only
    last = max(s.attributes["faultlib.step"] for s in _steps(faulted, SHIM["rank"]) if s.attributes["bad_samples"])
    assert all(math.isfinite(s.attributes["loss"]) for s in _steps(faulted, SHIM["rank"])
               if s.attributes["faultlib.step"] > last)
    assert faulted.summary["weights_finite"] is True
    assert abs(faulted.summary["accuracy"] - control.summary["accuracy"]) <= 0.02
    assert control.summary["accuracy"] > 0.85


def test_promql_shows_the_fault_by_rank(evidence):
    """The fault shows per rank in a real Prometheus over the run's metrics, and the control stays quiet."""
    received = {series.labels.get("rank"): max(v for _, v in series.values)
                for series in evidence.promql("received_by_rank", phase="faulted")}
    assert received[str(1 - SHIM["rank"])] > 0 and received[str(SHIM["rank"])] == 0
    assert evidence.promql("received_by_rank", phase="control").max() == 0
    assert evidence.promql("skipped_by_rank", phase="control").max() == 0
