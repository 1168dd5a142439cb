"""Assertion suite of collective_desync; the `evidence` fixture comes from faultlib.cases.fixture."""

import importlib.util
import json
import math
from pathlib import Path

from faultlib.detect.distributed import analyse_collectives, load_collective_dumps
from faultlib.processes.tree import environ_of, process_table
from faultlib.readers import load_yaml_file

HERE = Path(__file__).parent
CASE = load_yaml_file(HERE / "case.yaml").data
PARAMS = CASE["repro"]["params"]
SHIM = CASE["inject"]["local"][0]["params"]
GLOO_DEFAULT_TIMEOUT_S = 1800.0  # torch.distributed's default for gloo (30 min)


def _repro():
    spec = importlib.util.spec_from_file_location("collective_desync_repro", HERE / "repro.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _metric_line() -> int:
    lines = (HERE / "repro.py").read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "the class-0 metric all-reduce" in line)


def _first_step_without_zero(rank: int) -> int:
    """Recomputed from the data, independently of the run: the first step from start_step where ``rank``'s
    batch holds no 0 (the repro's sharding, seed = repro.seed)."""
    module = _repro()
    x, y, _, _ = module.digits_split(CASE["repro"]["seed"])
    batches = module.rank_batches(x, y, rank=rank, world=2, batch=PARAMS["batch_size"], seed=CASE["repro"]["seed"])
    for step in range(PARAMS["steps"]):
        _, yb = next(batches)
        if step >= SHIM["start_step"] and not bool((yb == 0).any()):
            return step
    raise AssertionError("no batch without a 0 in the window: the case's parameters no longer reproduce")


def _steps_by_rank(phase):
    """The steps each rank completed: a step that raised (its peer gone while the world was ended) closed its
    span before recording anything and is not a measurement."""
    out = {}
    for span in phase.steps():
        if "class0_local" in span.attributes:
            out.setdefault(span.attributes["rank"], {})[span.attributes["faultlib.step"]] = span.attributes
    return out


def _dump_dir(evidence, phase: str) -> Path:
    return evidence.dumps / phase


def test_control_is_silent_and_agrees(evidence):
    control = evidence.control
    assert control.status == "ok" and control.findings == []
    for rank in (0, 1):
        assert control.metric("faultlib_train_steps_total", rank=rank) == PARAMS["steps"]
    dumps = load_collective_dumps(_dump_dir(evidence, "control"))
    assert sorted(d.rank for d in dumps) == [0, 1] and {d.reason for d in dumps} == {"exit"}
    report = analyse_collectives(dumps)
    assert report.findings == [], f"{[f.message for f in report.findings]}"
    assert not (_dump_dir(evidence, "control") / "abort-rank0.json").exists(), "the watchdog fired in the control"


def test_rank_1_skipped_on_its_first_batch_without_a_zero(evidence):
    skip_step = _first_step_without_zero(SHIM["rank"])
    faults = evidence.faulted.spans_named("faultlib.fault")
    assert [(f.attributes["rank"], f.attributes["step"]) for f in faults] == [(SHIM["rank"], skip_step)]
    steps = _steps_by_rank(evidence.faulted)
    assert steps[1][skip_step]["class0_local"] == 0  # rank 1's batch had no 0 and it went on alone
    assert skip_step not in steps[0], "rank 0 never finished the step whose metric rank 1 skipped"
    assert max(steps[0]) == skip_step - 1 and max(steps[1]) == skip_step


def test_recorder_names_rank_seq_and_call_site(evidence):
    skip_step = _first_step_without_zero(SHIM["rank"])
    report = analyse_collectives(load_collective_dumps(_dump_dir(evidence, "faulted")))
    first = report.first_divergence
    assert first["kind"] == "collective_missing" and first["ranks"] == [SHIM["rank"]]
    assert first["op"] == "all_reduce" and first["seq"] == skip_step  # one metric all-reduce per step before it
    site = first["call_sites"]["0"]
    assert Path(site["file"]).name == "repro.py" and site["line"] == _metric_line()
    assert site["function"] == "reduce_metric" and first["call_sites"]["1"] is None
    assert {w["rank"] for w in report.waiting_ranks} == {0, 1}
    assert all(w["state"] == "started" for w in report.waiting_ranks)
    # rank 0 reported the same in the run's evidence, naming rank 1 and the line
    named = [f for f in evidence.faulted.findings if f.kind == "collective_missing"
             and f.evidence.get("group") == first["group"]]
    assert len(named) == 1 and named[0].evidence["ranks"] == [1] and named[0].location["line"] == _metric_line()


def test_detected_within_the_watchdog_deadline(evidence):
    for rank in (0, 1):
        dump = json.loads((_dump_dir(evidence, "faulted") / f"rank{rank}.json").read_text())
        assert dump["reason"] == "watchdog"
        record = json.loads((_dump_dir(evidence, "faulted") / f"abort-rank{rank}.json").read_text())
        assert PARAMS["watchdog_s"] <= record["waited_s"] <= PARAMS["watchdog_s"] + 2.0, f"{record}"
        assert record["waited_s"] < GLOO_DEFAULT_TIMEOUT_S / 100
        assert record["dumps"] == [0, 1]  # every rank's ring was on disk before the world ended


def test_world_ended_cleanly_long_before_the_timeout(evidence):
    faulted = evidence.faulted
    assert faulted.status == "ok" and faulted.exit_code == 0  # not killed at repro.timeout_s
    took = sum(a["duration_s"] for a in faulted.attempts)
    assert took < CASE["repro"]["timeout_s"] / 2
    if evidence.has_control:
        control = sum(a["duration_s"] for a in evidence.control.attempts)
        assert took < control + 3 * PARAMS["watchdog_s"], f"{took}; {control}"
    run_id = evidence.path.name
    left = [pid for pid in process_table() if (environ_of(pid) or {}).get("FAULTLIB_RUN_ID") == run_id]
    assert left == [], "a rank (or the launcher) outlived its phase"


def test_uniform_reduce_agrees_with_one_process(evidence):
    checked = 0
    for phase in evidence.phases:
        steps = _steps_by_rank(phase)
        for step, a in steps.get(0, {}).items():
            b = steps.get(1, {}).get(step)
            if b is None or min(a["class0_local"], b["class0_local"]) > 0:
                continue
            checked += 1  # one rank had no 0 and still called the all-reduce, contributing zeros
            for mine in (a, b):
                assert mine["class0_count"] == a["class0_local"] + b["class0_local"]
                assert math.isclose(mine["class0_sum"], a["class0_local_sum"] + b["class0_local_sum"],
                                    rel_tol=1e-5, abs_tol=1e-6)
    assert checked >= 3, "no step where a rank lacked a 0: the uniform reducer was not exercised"
