"""The collective flight recorder on the real engine: 2 gloo ranks on 127.0.0.1, one process each.

Each test starts its world once (tests/detect/worlds/collective_world.py), reads the dumps the recorder
wrote (at exit, by its watchdog, on SIGUSR1) and checks them with ``faultlib check collectives``; every rank
process is killed at the end, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from tests.conftest import REPO, cli
from tests.rendezvous import agent_store, one_rank_store

pytest.importorskip("torch")
WORLD = Path(__file__).parent / "worlds" / "collective_world.py"


class World:
    """Two rank processes of one scenario; :meth:`kill` ends both (by pid, with their groups), then the store they
    met at (hosted here, on a port the OS picked as it bound it: tests/rendezvous.py)."""

    def __init__(self, scenario: str, dump_dir: Path, log_dir: Path, **env: str):
        self._store = contextlib.ExitStack()
        rendezvous = self._store.enter_context(agent_store())
        self.procs = []
        for rank in range(2):
            e = {**os.environ, "RANK": str(rank), "WORLD_SIZE": "2", **rendezvous,
                 "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", **env}
            log = open(log_dir / f"rank{rank}.log", "w")
            self.procs.append(subprocess.Popen([sys.executable, str(WORLD), scenario, str(dump_dir)], env=e,
                                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            log.close()
        self.log_dir = log_dir

    def logs(self) -> str:
        return "\n".join((self.log_dir / f"rank{r}.log").read_text() for r in range(2))

    def wait(self, timeout: float) -> list[int | None]:
        deadline = time.monotonic() + timeout
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        return [p.poll() for p in self.procs]

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)
        self._store.close()


@pytest.fixture
def world(tmp_path):
    started: list[World] = []

    def start(scenario: str, **env: str) -> World:
        w = World(scenario, tmp_path / "dumps", tmp_path, **env)
        started.append(w)
        return w

    yield start
    for w in started:
        w.kill()


def _dump(path: Path, reason: str | None = None, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            doc = json.loads(path.read_text())
            if reason is None or doc["reason"] == reason:
                return doc
        time.sleep(0.05)
    raise AssertionError(f"no {reason or ''} dump at {path} within {timeout} s")


def _check(dump_dir: Path):
    proc = cli("check", "collectives", str(dump_dir), "--json", cwd=dump_dir.parent, timeout=120)
    return proc, json.loads(proc.stdout) if proc.stdout.strip() else None


def _line_of(text: str) -> int:
    return next(i for i, line in enumerate(WORLD.read_text().splitlines(), 1) if text in line)


def test_a_healthy_world_dumps_agreeing_rings_at_exit_and_the_check_passes(world, tmp_path):
    w = world("healthy")
    assert w.wait(120) == [0, 0], w.logs()
    assert sorted(p.name for p in (tmp_path / "dumps").iterdir()) == ["rank0.json", "rank1.json"]  # no .fatal left
    dumps = [_dump(tmp_path / "dumps" / f"rank{r}.json", "exit") for r in range(2)]
    for r, doc in enumerate(dumps):
        assert doc["rank"] == r and doc["world_size"] == 2 and doc["dropped"] == 0
        ops = [e["op"] for e in doc["entries"]]
        assert ops == ["all_reduce", "all_reduce", "broadcast"] * 5 + ["all_reduce"] * 2 + ["barrier"]
        assert [e["seq"] for e in doc["entries"]] == list(range(18))
        ddp = doc["entries"][15:17]
        assert [e["bucket"] for e in ddp] == [0, 0] and [e["async_op"] for e in ddp] == [True, True]
        assert all(e["wait_ns"] is not None for e in ddp)  # DDP's own C++ all-reduce, timed per backward
        assert ddp[0]["tensors"] == [{"shape": [10], "dtype": "torch.float32"}]  # one bucket: 4*2 weights + 2 biases
        assert ddp[0]["call_site"]["line"] == _line_of("DDP's gradient all-reduce")
        assert all(e["state"] == "completed" and e["end_ns"] >= e["start_ns"] for e in doc["entries"])
        first = doc["entries"][0]
        assert first["tensors"] == [{"shape": [8], "dtype": "torch.float32"}]
        assert first["group"]["size"] == 2 and first["group"]["ranks"] == [0, 1]
        assert first["call_site"]["file"] == str(WORLD) and first["call_site"]["function"] == "main"
        assert first["call_site"]["line"] == _line_of("dist.all_reduce(grad)")
    proc, out = _check(tmp_path / "dumps")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out["ok"] is True and out["first_divergence"] is None and out["waiting_ranks"] == []
    assert out["findings"] == [] and out["ranks"] == [0, 1]


def test_a_rank_that_skips_an_all_reduce_is_named_from_the_watchdog_dumps(world, tmp_path):
    w = world("skip", GLOO_TIMEOUT_S="120")
    stuck = [_dump(tmp_path / "dumps" / f"rank{r}.json", "watchdog") for r in range(2)]
    assert [w.poll() for w in w.procs] == [None, None]  # both ranks still hang
    pending = [[e for e in doc["entries"] if e["state"] == "started"] for doc in stuck]
    assert [[e["seq"] for e in p] for p in pending] == [[7], [7]]
    for doc, (e,) in zip(stuck, pending):  # dumped after the 2 s deadline, long before gloo's 120 s timeout
        assert 2e9 <= doc["dumped_at_ns"] - e["start_ns"] < 60e9
    os.kill(w.procs[1].pid, signal.SIGUSR1)  # a dump on demand, from the signal handler
    assert _dump(tmp_path / "dumps" / "rank1.json", "signal")["entries"][-1]["state"] == "started"
    w.kill()
    proc, out = _check(tmp_path / "dumps")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = out["first_divergence"]
    assert first == {"seq": 7, "group": first["group"], "op": "all_reduce", "ranks": [1], "kind": "collective_missing",
                     "call_sites": first["call_sites"]}
    assert first["call_sites"]["0"]["line"] == _line_of("the loss sum, skipped")
    assert first["call_sites"]["1"]["line"] == _line_of("dist.broadcast(torch.zeros(3), src=0)")
    waiting = [(r["rank"], r["seq"], r["state"]) for r in out["waiting_ranks"]]
    # rank 0 is killed first; rank 1 may see its peer go (its exit dump then says the wait failed) before its kill
    assert waiting in ([(0, 7, "started"), (1, 7, "started")], [(0, 7, "started"), (1, 7, "failed")])
    assert sorted(f["kind"] for f in out["findings"]) == ["collective_missing", "collective_pending",
                                                          "collective_pending"]
    human = cli("check", "collectives", str(tmp_path / "dumps"), cwd=tmp_path)
    assert human.returncode == 1 and "seq 7" in human.stdout and "rank 1" in human.stdout


def test_a_shape_mismatch_that_the_backend_accepts_is_named(world, tmp_path):
    w = world("shape")
    assert w.wait(120) == [0, 0], w.logs()  # silent: same number of bytes, gloo sums them
    proc, out = _check(tmp_path / "dumps")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = out["first_divergence"]
    assert first["kind"] == "collective_mismatch" and first["seq"] == 8 and first["op"] == "all_reduce"
    assert {r: s["line"] for r, s in first["call_sites"].items()} == {"0": _line_of("another shape"),
                                                                      "1": _line_of("another shape")}
    assert [f["kind"] for f in out["findings"]] == ["collective_mismatch"] and out["waiting_ranks"] == []
    assert "shape differs" in out["findings"][0]["message"] and "[2, 4]" in out["findings"][0]["message"]


def test_a_rank_that_skips_one_ddp_backward_is_named_at_the_step_it_skipped(world, tmp_path):
    w = world("ddp_skip")
    codes = w.wait(120)
    assert codes[1] == 0 and codes[0] != 0, w.logs()  # rank 0's last all-reduce failed when rank 1 left
    dumps = [_dump(tmp_path / "dumps" / f"rank{r}.json", "exit") for r in range(2)]
    assert [e["step"] for e in dumps[0]["entries"]] == [0, 1, 2, 3]  # optimizer steps before each bucket
    assert [e["step"] for e in dumps[1]["entries"]] == [0, 2, 3]
    assert dumps[0]["entries"][-1]["state"] == "failed"  # the future failed: not marked completed
    proc, out = _check(tmp_path / "dumps")
    assert proc.returncode == 1
    first = out["first_divergence"]
    assert (first["seq"], first["ranks"], first["kind"], first["steps"]) == (1, [1], "collective_missing",
                                                                            {"0": 1, "1": 2})
    assert first["call_sites"]["0"]["line"] == _line_of("the skipped step's gradient all-reduce")
    finding = next(f for f in out["findings"] if f["kind"] == "collective_missing")
    assert finding["location"]["step"] == 1 and "issued none in step 1" in finding["message"]


def test_in_one_process_the_ring_is_bounded_async_work_completes_and_uninstall_restores(tmp_path):
    import torch
    import torch.distributed as dist

    from faultlib.detect import FlightRecorder

    dist.init_process_group("gloo", store=one_rank_store(), rank=0, world_size=1)
    try:
        original, handler = dist.all_reduce, signal.getsignal(signal.SIGUSR1)
        with FlightRecorder(tmp_path, capacity=4, watchdog_s=None) as rec:
            assert dist.all_reduce is not original and dist.all_reduce.__wrapped__ is original
            for _ in range(5):
                dist.all_reduce(torch.ones(2, 3, dtype=torch.float64))
            dist.all_reduce(torch.ones(1), async_op=True).wait()
            with pytest.raises(RuntimeError, match="already installed"):
                FlightRecorder(tmp_path).install()
        assert dist.all_reduce is original and signal.getsignal(signal.SIGUSR1) == handler
        doc = json.loads((tmp_path / "rank0.json").read_text())
        assert doc["reason"] == "exit" and doc["dropped"] == 2 and rec.dumps == 1
        assert [e["seq"] for e in doc["entries"]] == [2, 3, 4, 5]
        assert doc["entries"][0]["tensors"] == [{"shape": [2, 3], "dtype": "torch.float64"}]
        assert doc["entries"][-1]["async_op"] is True
        deadline = time.monotonic() + 5
        while rec.entries()[-1]["state"] != "completed" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert rec.entries()[-1]["state"] == "completed"
        assert doc["entries"][0]["call_site"]["file"] == __file__
        assert rec.sequence_numbers() == {"0": 6}
        wrapper = tmp_path / "wrapper.py"  # a launcher's frame is not the call site when skip_paths names it
        wrapper.write_text("def reduce(dist, t):\n    dist.all_reduce(t)\n")
        namespace: dict = {}
        exec(compile(wrapper.read_text(), str(wrapper), "exec"), namespace)
        for skip, expected in (((), str(wrapper)), ((str(wrapper),), __file__)):
            with FlightRecorder(tmp_path / "w", watchdog_s=None, skip_paths=skip) as rec:
                namespace["reduce"](dist, torch.ones(1))  # this line calls the wrapper
            assert rec.entries()[-1]["call_site"]["file"] == expected
    finally:
        dist.destroy_process_group()


def _mlp():
    import torch

    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                               torch.nn.Linear(256, 4))


def test_ddp_buckets_on_the_builtin_path_are_recorded_per_backward_and_the_hook_is_opt_in(tmp_path):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from faultlib.detect import FlightRecorder

    dist.init_process_group("gloo", store=one_rank_store(), rank=0, world_size=1)
    pg = dist.distributed_c10d._get_default_group()
    try:
        forward, backward = DDP.forward, torch.autograd.backward
        # a first bucket of 1 MiB (DDP's default) and a 0.25 MiB cap: several buckets, rebuilt after step 1
        model = DDP(_mlp(), bucket_cap_mb=0.25)
        x = torch.randn(8, 64)
        with FlightRecorder(tmp_path, watchdog_s=None) as rec, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert DDP.forward is not forward and model._comm_hooks == []  # no Python hook put on DDP
            seqs = []
            for step in range(3):
                before = pg._get_sequence_number_for_group()
                model(x).sum().backward()  # the built-in bucket all-reduces
                seqs.append(pg._get_sequence_number_for_group() - before)
                if step == 1:
                    with model.no_sync():  # gradient accumulation: no all-reduce, no entry
                        model(x).sum().backward()
            entries = rec.entries()
        layout_warnings = [w for w in caught if "bucket layout" in str(w.message)]
        assert DDP.forward is forward and torch.autograd.backward is backward  # uninstall restores
        steps = [[e for e in entries if e["start_ns"] == t] for t in sorted({e["start_ns"] for e in entries})]
        issued = [s - (2 if i == 1 else 0) for i, s in enumerate(seqs)]  # DDP's bucket-rebuild broadcasts, step 2
        # one entry per bucket the C++ side issued: 1 bucket at first, more once DDP rebuilt them in step 2
        assert [len(s) for s in steps] == issued and issued[-1] >= 2 and not layout_warnings
        total = sum(p.numel() for p in model.parameters())
        for group in steps:
            assert [e["bucket"] for e in group] == list(range(len(group)))
            assert sum(e["tensors"][0]["shape"][0] for e in group) == total
            assert all(e["state"] == "completed" and e["op"] == "all_reduce" and e["async_op"] for e in group)
            assert all(0 <= e["wait_ns"] <= e["end_ns"] - e["start_ns"] for e in group)
            assert group[0]["call_site"]["line"] == _line_of_test("the built-in bucket all-reduces")
        assert [e["seq"] for e in entries] == list(range(len(entries)))

        hooked = DDP(_mlp(), bucket_cap_mb=0.25)
        with FlightRecorder(tmp_path / "h", watchdog_s=None, ddp_per_bucket=True) as rec:
            for _ in range(2):
                hooked(x).sum().backward()
            per_bucket = rec.entries()[1:]  # the second backward's, after DDP rebuilt its buckets
        assert len(hooked._comm_hooks) == 1  # the opt-in: DDP's buckets through the recorder's Python hook
        assert [e["bucket"] for e in per_bucket] == list(range(len(per_bucket))) and len(per_bucket) >= 2
        assert all("wait_ns" not in e for e in per_bucket)  # timed per bucket by the hook's futures
        assert len({e["start_ns"] for e in per_bucket}) == len(per_bucket)
    finally:
        dist.destroy_process_group()


def _line_of_test(text: str) -> int:
    return next(i for i, line in enumerate(Path(__file__).read_text().splitlines(), 1) if text in line)


def _divergence_and_findings(tmp_path: Path):
    proc, out = _check(tmp_path / "dumps")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return out["first_divergence"], {f["kind"]: f for f in out["findings"]}


def test_a_rank_that_ran_out_of_batches_is_named_with_its_last_step(world, tmp_path):
    w = world("uneven")
    codes = w.wait(120)
    assert codes[0] == 0 and codes[1] != 0, w.logs()  # rank 1's fourth all-reduce fails when rank 0 leaves
    first, by_kind = _divergence_and_findings(tmp_path)
    assert (first["seq"], first["ranks"], first["kind"]) == (3, [0], "collective_missing")
    assert first["ended"] == {"0": {"cause": "uneven_inputs", "reason": "exit", "last_seq": 2, "last_step": 0,
                                    "exit_error": None}}
    message = by_kind["collective_missing"]["message"]
    assert "rank 0 ran out of batches" in message and "after its seq 2" in message and "join()" in message
    assert by_kind["collective_pending"]["evidence"]["rank"] == 1


def test_a_rank_that_raised_is_told_from_one_that_ran_out_of_batches(world, tmp_path):
    w = world("raise")
    codes = w.wait(120)
    # rank 1 raised: Python exits 1, unless a gloo thread still joinable when the interpreter ends makes C++ call
    # std::terminate first ("terminate called without an active exception": SIGABRT, -6; seen in full suites)
    assert codes[1] in (1, -signal.SIGABRT) and "ValueError: corrupt record in batch 2" in w.logs(), \
        f"{codes}; {w.logs()}"
    first, by_kind = _divergence_and_findings(tmp_path)
    said = (first, sorted(by_kind), w.logs())  # what to read when this fails (seen twice in loaded full suites)
    assert (first["seq"], first["ranks"]) == (2, [1]), said
    ended = first["ended"]["1"]
    assert ended["cause"] == "rank_raised" and ended["exit_error"] == "ValueError: corrupt record in batch 2", said
    assert "rank 1 raised ValueError: corrupt record in batch 2" in by_kind["collective_missing"]["message"]


def test_a_rank_aborted_by_a_dtype_mismatch_is_placed_at_the_collective_the_other_was_in(world, tmp_path):
    w = world("dtype")
    codes = w.wait(120)
    assert sorted(c != 0 for c in codes) == [True, True], w.logs()  # one aborted, the other lost its peer
    dumped = [r for r in range(2) if (tmp_path / "dumps" / f"rank{r}.json").exists()]
    assert len(dumped) == 1, w.logs()  # gloo's abort leaves no dump: only what the survivor recorded says where
    gone = 1 - dumped[0]
    _, out = _check(tmp_path / "dumps")
    missing = next(f for f in out["findings"] if f["kind"] == "dump_missing")
    assert missing["evidence"]["rank"] == gone and missing["evidence"]["seq"] == 1
    assert missing["location"]["line"] == _line_of("the logged loss's dtype")
    assert f"rank {gone} died in or before that collective" in missing["message"]
    fatal = missing["evidence"]["fatal"]  # faulthandler's trace of the aborted rank: the same collective and line
    assert (fatal["error"], fatal["op"], fatal["line"]) == ("Aborted", "all_reduce", _line_of("the logged loss's dtype"))
    assert "the same collective, so the ranks passed it different sizes or dtypes" in missing["message"]


def test_the_root_of_a_broadcast_is_recorded_and_ranks_that_pass_different_roots_disagree(tmp_path):
    import torch
    import torch.distributed as dist

    from faultlib.detect import FlightRecorder

    dist.init_process_group("gloo", store=one_rank_store(), rank=0, world_size=1)
    try:
        with FlightRecorder(tmp_path / "dumps", watchdog_s=None):
            dist.broadcast(torch.zeros(1), 0)
            dist.broadcast(torch.zeros(1), src=0)
            dist.reduce(torch.zeros(1), dst=0)
            dist.all_reduce(torch.zeros(1))
    finally:
        dist.destroy_process_group()
    doc = json.loads((tmp_path / "dumps" / "rank0.json").read_text())
    assert [e["root"] for e in doc["entries"]] == [0, 0, 0, None]
    # as ranks 0 and 1 of a 2-rank job whose line says src=local_rank: the same broadcast, its own rank as the root
    for e in doc["entries"]:
        e["group"] = dict(e["group"], size=2, ranks=[0, 1])
    doc["world_size"] = 2  # recorded in a 1-rank world: rank 1 of world_size 1 is refused (exit 2)
    (tmp_path / "dumps" / "rank0.json").write_text(json.dumps(doc))
    doc.update(rank=1, entries=[dict(e, root=1) if e["seq"] == 1 else e for e in doc["entries"]])
    (tmp_path / "dumps" / "rank1.json").write_text(json.dumps(doc))
    first, by_kind = _divergence_and_findings(tmp_path)
    assert (first["seq"], first["op"], first["kind"]) == (1, "broadcast", "collective_mismatch")
    message = by_kind["collective_mismatch"]["message"]
    assert "root (src/dst) differs" in message and "src=1" in message and "src=0" in message
