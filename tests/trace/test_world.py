"""`faultlib trace -- torchrun ...` on real 2-rank gloo worlds (tests/trace/world_script.py): the rank that made
the value is named with its op and line, the other rank only received it through DDP's all-reduce (op, seq);
a world that fails on its own is not "found". The merge itself is tested in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from faultlib.detect.distributed.nonfinite import first_culprit, role_of
from faultlib.errors import ScriptError
from tests.conftest import cli
from tests.trace.test_outcomes import trace_json, torch

torch_load = torch.load

pytest.importorskip("torch.distributed")
WORLD = Path(__file__).parent / "world_script.py"
TORCHRUN = ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]


def test_the_rank_that_made_the_nan_is_named_and_the_other_received_it_through_all_reduce(tmp_path):
    proc, report = trace_json("--quiet-replay", "--dump-dir", str(tmp_path / "dumps"), "--", sys.executable,
                              *TORCHRUN, str(WORLD), "log", "2", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    first = report["first_nonfinite"]
    assert report["first_rank"] == first["rank"] == 1
    assert (first["step"], first["phase"], first["op"], first["source"]) == (2, "forward", "aten::log", "op")
    assert Path(first["file"]).name == "world_script.py" and first["line"] == 29  # torch.log(h - 10.0)
    rows = {r["rank"]: r for r in report["ranks"]}
    assert rows[1]["role"] == "producer" and rows[1]["received"] is None
    got = rows[0]["received"]
    assert rows[0]["role"] == "received" and got["op"] == "all_reduce" and got["step"] == 2
    assert got["seq"] == 2  # one DDP bucket per step: steps 0, 1, 2 are seq 0, 1, 2 of the world group
    assert rows[1]["sent"]["seq"] == 2  # the same collective carried it out of rank 1
    assert report["replayed"] and Path(report["dump"]) == (tmp_path / "dumps" / "rank1" / "dump.pt").resolve()
    assert torch_load(report["dump"], weights_only=True)["step"] == 2
    per_rank = {int(p.stem[4:]): json.loads(p.read_text()) for p in (tmp_path / "dumps").glob("rank*.json")}
    assert sorted(per_rank) == [0, 1] and per_rank[0]["world"]["received"]["seq"] == 2


def test_a_rank_that_exits_by_itself_is_the_worlds_failure_not_a_finding(tmp_path):
    proc = cli("trace", "--json", "--", "torchrun", *TORCHRUN[2:], str(WORLD), "exit3", "1", cwd=tmp_path)
    report = json.loads(proc.stdout)  # rank 0's traceback (its peer lost) passes through the tracer's module hook
    assert proc.returncode == 3, proc.stderr[-3000:]  # rank 1's own code, not torchrun's 1
    assert report["reason"] == "script_exit" and report["first_nonfinite"] is None
    assert report["error"].startswith("rank 1:")  # rank 0 only lost its peer
    assert {r["rank"]: r["end"] for r in report["ranks"]} == {0: "raised", 1: "exit"}


@pytest.mark.parametrize("command, says", [
    (["torchrun", "--nproc-per-node", "2", "--no-python", "x.py"], "--no-python"),
    (["torchrun", "--nproc-per-node", "2", "-m", "pkg.train"], "--module"),
    (["torchrun", "--nproc-per-node", "2", "missing.py"], "no such script"),
    (["python", "-m", "torch.distributed.run", "--bogus-flag", "x.py"], "cannot parse"),
    (["torchrun", "--nproc-per-node", "nan", "x.py"], "--nproc-per-node 'nan'"),
    (["torchrun", "--nproc-per-node", "0", "x.py"], "positive number"),
])
def test_a_world_command_trace_cannot_run_is_refused_before_it_starts(tmp_path, command, says):
    from faultlib.trace.world import resolve_world

    with pytest.raises(ScriptError, match=says):
        resolve_world(command)


def _summary(rank, seen=None, received=None, sent=None):
    return {"rank": rank, "first_seen": seen, "received": received, "sent": sent}


def test_the_merge_orders_producers_by_step_then_collective_position_not_by_rank():
    seen = lambda step, before, order: {"step": step, "where": "w", "collectives_before": before, "order": order}  # noqa: E731
    got = {"op": "all_reduce", "seq": 5, "group": "0", "step": 3, "order": 0}
    merged = first_culprit([_summary(0, seen(3, 6, 1), received=got), _summary(1, seen(3, 5, 4)),
                            _summary(2, seen(3, 4, 2)), _summary(3)])
    assert merged["first_rank"] == 2 and merged["source"] == "rank"
    assert [r["role"] for r in merged["ranks"]] == ["received", "producer", "producer", "clean"]
    # a rank that saw it before any collective brought it made it, even if a later collective also brought one
    assert role_of(_summary(0, seen(3, 6, 0), received={**got, "order": 1})) == "producer"
    # every rank received it from finite inputs: the collective made it (an all-reduce's sum overflowed)
    both = first_culprit([_summary(r, seen(3, 6, 1), received=got) for r in (0, 1)])
    assert both["first_rank"] is None and both["source"] == "collective"


def test_a_world_torch_multiprocessing_spawn_starts_from_plain_python_is_traced_rank_by_rank(tmp_path):
    proc, report = trace_json("--quiet-replay", "--dump-dir", str(tmp_path / "dumps"), "--", "python",
                              str(Path(__file__).parent / "spawn_script.py"), "poison", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    first = report["first_nonfinite"]
    assert report["first_rank"] == first["rank"] == 1 and first["step"] == 2 and first["source"] == "input"
    rows = {r["rank"]: r for r in report["ranks"]}
    assert rows[0]["role"] == "received" and rows[0]["received"]["op"] == "all_reduce"
    assert rows[0]["received"]["seq"] == rows[1]["sent"]["seq"] == 2
    assert report["replayed"] and Path(report["dump"]).parent.name == "rank1"
    assert not any("ran untraced" in note for note in report["notes"])


def test_a_rank_that_stopped_at_its_value_and_died_at_teardown_is_the_tools_stop_not_the_scripts_failure(tmp_path):
    proc, report = trace_json("--quiet-replay", "--", "python", str(Path(__file__).parent / "spawn_script.py"),
                              "poison_abort", cwd=tmp_path)  # trace_json: no traceback through faultlib's code
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert report["first_rank"] == report["first_nonfinite"]["rank"] == 1 and report["first_nonfinite"]["step"] == 2
    assert "spawned world done" in proc.stderr  # the script went on past spawn (its output: stderr under --json)


def test_a_value_that_stays_on_its_rank_is_found_and_the_peer_it_left_behind_is_not_blamed(tmp_path):
    proc = cli("trace", "--json", "--quiet-replay", "--", "python", str(Path(__file__).parent / "spawn_script.py"),
               "alone", cwd=tmp_path)
    report = json.loads(proc.stdout)  # spawn's join raises rank 0's failure through the tracer's join
    assert proc.returncode == 1, proc.stderr[-3000:]  # found, though rank 0 then died waiting for rank 1
    assert report["reason"] == "nonfinite" and report["first_rank"] == 1 and report["replayed"]
    rows = {r["rank"]: r for r in report["ranks"]}
    assert rows[0]["role"] == "clean" and rows[0]["received"] is None  # no collective carried it
    assert rows[1]["role"] == "producer" and rows[1]["end"] == "stopped"
