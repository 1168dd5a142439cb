"""A distributed case (``repro.world``) runs every rank through torchrun on the real gloo backend:
each rank's evidence lands in the one run directory labelled ``rank``, and a world stuck in a
collective is killed whole at the phase's timeout."""

from __future__ import annotations

import json

import pytest

from faultlib.archive import FileArchive
from faultlib.cases import load_case
from faultlib.evidence import layout
from faultlib.processes.tree import environ_of, process_table
from faultlib.record import PhaseStatus
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case

pytest.importorskip("torch.distributed")

WORLD_REPRO = '''
import os
import time
import torch
import torch.distributed as dist
from faultlib import repro

with repro.context() as ctx:
    dist.init_process_group("gloo")
    assert ctx.rank == dist.get_rank() and ctx.world_size == dist.get_world_size() == 2
    gauge = ctx.evidence.gauge("faultlib_world_sum", "all-reduced sum of rank + 1")
    for step in range(3):
        with ctx.step(step, total=3):
            value = torch.tensor([float(ctx.rank + 1)])
            if not (ctx.phase == "faulted" and ctx.params.get("skip") and ctx.rank == 1):
                dist.all_reduce(value)  # rank 1 skipping it leaves rank 0 waiting for ever
            gauge.set(float(value))
    print(f"rank={ctx.rank} pid={os.getpid()}", flush=True)
    if ctx.phase == "faulted" and ctx.params.get("skip"):
        time.sleep(600)  # rank 1 goes on with other work; rank 0 waits in its all_reduce
    dist.destroy_process_group()
'''

WORLD_TEST = '''
def test_ok(evidence):
    assert evidence.control
'''


def _world_case(tmp_path, **params):
    data = tiny_case_data("world_case")
    data["repro"].update({"timeout_s": 60, "params": params, "world": {"ranks": 2}})
    data["observability"]["promql"] = [{"id": "sum", "query": "max(faultlib_world_sum)"}]
    data["observability"]["grafana"]["panels"][0]["query"] = "sum"
    data["assertions"] = [{"id": "ok", "when": "after", "test": "test_ok", "description": "d"}]
    return load_case(write_case(tmp_path / "cases", data, repro=WORLD_REPRO, test=WORLD_TEST))


def test_every_rank_writes_into_the_one_run_directory_labelled_rank(tmp_path):
    case = _world_case(tmp_path)
    assert case.world is not None and case.world.ranks == 2
    record = Runner(FileArchive(tmp_path / "runs")).run(case)
    run_dir = tmp_path / "runs" / case.id / record.run_id
    assert record.control.status is PhaseStatus.OK, (run_dir / layout.STDERR).read_text()[-2000:]
    prom = (run_dir / layout.METRICS_PROM).read_text()
    sums = {line.split('rank="')[1].split('"')[0]: line.rsplit(" ", 1)[1]
            for line in prom.splitlines() if line.startswith("faultlib_world_sum{") and 'phase="control"' in line}
    assert sums == {"0": "3.0", "1": "3.0"}, prom  # both ranks saw the all-reduced sum 1 + 2
    ranks = set()
    for line in (run_dir / layout.TRACES).read_text().splitlines():  # every line whole: no interleaving
        for rs in json.loads(line)["resourceSpans"]:
            attrs = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}
            ranks.add(attrs["faultlib.rank"].get("intValue"))
    assert ranks == {"0", "1"}  # OTLP/JSON writes int64 as a string
    out = (run_dir / layout.STDOUT).read_text()
    assert "rank=0" in out and "rank=1" in out


def test_a_world_hung_in_a_collective_is_killed_whole_at_the_timeout(tmp_path):
    case = _world_case(tmp_path, skip=True)
    record = Runner(FileArchive(tmp_path / "runs")).run(case, control=False, timeout_s=20)
    assert record.faulted.status is PhaseStatus.TIMEOUT
    out = (tmp_path / "runs" / case.id / record.run_id / layout.STDOUT).read_text()
    assert "rank=1" in out and "rank=0" not in out, "rank 1 went on, rank 0 was still inside all_reduce"
    left = [pid for pid in process_table() if (environ_of(pid) or {}).get("FAULTLIB_RUN_ID") == record.run_id]
    assert left == [], "a rank (or the launcher) outlived its phase"


def test_compose_refuses_a_distributed_case_before_anything_runs(tmp_path):
    from faultlib.backends import get_backend
    from faultlib.errors import CaseError

    with pytest.raises(CaseError, match=r"repro\.world, 2 ranks.*--backend local"):
        get_backend("compose").preflight(_world_case(tmp_path))
