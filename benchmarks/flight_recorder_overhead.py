"""Cost of the collective flight recorder on a real DDP training step (2 ranks, gloo, CPU), same-run ratio.

Workload per rank (one thread, ``torch.set_num_threads(1)``): an MLP 256-1024-1024-10 (about 1.3 M parameters,
DDP's gradient all-reduce of 5 MB in buckets), batch 64 of fixed random data, SGD; each step also all-reduces
the loss for logging through the Python API, as training loops do.

Variants, interleaved in one world on the same data (the order of the five rotates every round):

* ``baseline``: DDP as users run it, its built-in (C++) gradient all-reduce, the loss all-reduce unwrapped;
* ``recorder``: :class:`faultlib.detect.distributed.FlightRecorder` installed (watchdog on, 60 s) with its
  default: DDP's buckets stay on DDP's C++ all-reduce and are recorded per backward (``ddp_buckets``); every
  bucket and the loss all-reduce are recorded; installed before and removed after each of its rounds;
* ``hook``: DDP's gradient all-reduce through PyTorch's own Python ``default_hooks.allreduce_hook``, no
  recorder: the cost of leaving DDP's C++ path, apart from the recorder's;
* ``recorder_hook``: the recorder with ``ddp_per_bucket=True`` (the opt-in: buckets through the Python hook,
  per-bucket times): what the recorder cost before ``ddp_buckets``;
* ``baseline_copy``: a second plain DDP model, nothing wrapped (an A/A control: how far two identical variants
  differ on this machine, e.g. from where their tensors sit in memory).

A DDP model takes one comm hook for life, so each variant has its own DDP model (same architecture, same
initial weights). A round is ``--steps`` steps (default 10). Rank 0 times each round (the collectives keep the
ranks in step) by wall clock (``perf_counter``), by its main thread's CPU time (``thread_time``) and by its
process's CPU time (``process_time``, gloo's threads included): CPU time is less disturbed by other load on a
shared machine. Reported: the median over rounds of each variant / ``baseline`` (paired ratios of the same
round) with bootstrap 95 % intervals, the median step times, the recorder's own cost per recorded collective
(µs, from a loop of ``record`` calls) and the load average while it ran.
Goal (issue 20): ``recorder`` / ``baseline`` <= 1.02 per step.

Usage: ``python benchmarks/flight_recorder_overhead.py [--rounds N] [--steps N] [--quick] [--json]``. Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

GOAL = 1.02
SIZES = (256, 1024, 1024, 10)
VARIANTS = ("baseline", "recorder", "hook", "recorder_hook", "baseline_copy")
CLOCKS = ("wall", "thread_cpu", "process_cpu")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for a, b in zip(SIZES, SIZES[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def _rank(rank: int, world: int, port: int, args: dict, out_path: str) -> None:
    from faultlib.detect.distributed import FlightRecorder

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    ddp = torch.nn.parallel.DistributedDataParallel
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    models = {v: ddp(_model()) for v in VARIANTS}
    dump_dir = tempfile.mkdtemp(prefix="faultlib-fr-bench-")
    recorders = {"recorder": FlightRecorder(dump_dir, watchdog_s=60.0, signum=None, stop_signals=()),
                 "recorder_hook": FlightRecorder(dump_dir, watchdog_s=60.0, signum=None, stop_signals=(),
                                                 ddp_per_bucket=True)}
    models["hook"].register_comm_hook(None, default_hooks.allreduce_hook)
    gen = torch.Generator().manual_seed(rank)
    x, y = torch.randn(64, SIZES[0], generator=gen), torch.randint(0, 10, (64,), generator=gen)
    optimizers = {k: torch.optim.SGD(m.parameters(), lr=0.01) for k, m in models.items()}

    def one_round(variant: str) -> tuple[int, int, int]:
        model, opt, recorder = models[variant], optimizers[variant], recorders.get(variant)
        if recorder is not None:
            recorder.install()
        try:
            dist.barrier()
            start, thread, proc = time.perf_counter_ns(), time.thread_time_ns(), time.process_time_ns()
            for _ in range(args["steps"]):
                loss = torch.nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                logged = loss.detach().clone()
                dist.all_reduce(logged)  # the loss, for logging
            return (time.perf_counter_ns() - start, time.thread_time_ns() - thread, time.process_time_ns() - proc)
        finally:
            if recorder is not None:
                recorder.uninstall()

    n = len(VARIANTS)
    for i in range(args["warmup"]):
        one_round(VARIANTS[i % n])
    rounds = []
    for i in range(args["rounds"]):
        order = VARIANTS[i % n:] + VARIANTS[:i % n]
        rounds.append({v: one_round(v) for v in order})
    os.rmdir(dump_dir)
    recorder = recorders["recorder"]
    recorder.install()
    n = 20_000
    start = time.perf_counter_ns()
    for _ in range(n):
        recorder.complete(recorder.record("all_reduce", [x]))
    per_call_us = (time.perf_counter_ns() - start) / n / 1e3
    recorder.uninstall()
    if rank == 0:
        with open(out_path, "w") as fh:
            json.dump({"rounds": rounds, "record_us": per_call_us}, fh)
    dist.barrier()
    dist.destroy_process_group()


def bootstrap_ci(values: list[float], reps: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    arr = np.asarray(values)
    medians = np.median(rng.choice(arr, size=(reps, arr.size), replace=True), axis=1)
    return float(np.percentile(medians, 2.5)), float(np.percentile(medians, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="rounds of each variant (default 60)")
    parser.add_argument("--steps", type=int, default=10, help="training steps per round (default 10)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 6 rounds of 3 steps")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ns = parser.parse_args()
    args = {"rounds": 6, "steps": 3, "warmup": 2} if ns.quick else {"rounds": ns.rounds, "steps": ns.steps, "warmup": 4}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        mp.spawn(_rank, args=(2, _free_port(), args, out), nprocs=2, join=True)
        with open(out) as fh:
            raw = json.load(fh)
    load_after = os.getloadavg()
    rounds, steps = raw["rounds"], args["steps"]
    result: dict = {"goal": GOAL, "rounds": len(rounds), "steps_per_round": steps, "variants": {},
                    "record_us_per_collective": raw["record_us"], "loadavg_1m": [load_before[0], load_after[0]],
                    "cpus": os.cpu_count(), "torch": torch.__version__}
    for v in VARIANTS:
        row: dict = {}
        for c, clock in enumerate(CLOCKS):
            row[f"{clock}_step_ms"] = statistics.median(r[v][c] for r in rounds) / steps / 1e6
            if v != "baseline":
                ratios = [r[v][c] / r["baseline"][c] for r in rounds]
                row[f"{clock}_ratio"] = statistics.median(ratios)
                row[f"{clock}_ci95"] = list(bootstrap_ci(ratios))
        result["variants"][v] = row
    result["ratio"] = result["variants"]["recorder"]["wall_ratio"]
    result["ci95"] = result["variants"]["recorder"]["wall_ci95"]
    result["met"] = result["ratio"] <= GOAL
    if ns.json:
        print(json.dumps(result))
        return
    print(f"flight recorder on a DDP step (2 ranks, gloo, MLP {'-'.join(map(str, SIZES))}, batch 64, "
          f"{len(rounds)} rounds x {steps} steps):")
    print("  per step; ratios: median of same-round variant / baseline, bootstrap 95 % CI")
    print(f"  {'variant':<14}{'wall':>9}  {'thread CPU':>10}  {'process CPU':>11}")
    for v in VARIANTS:
        row = result["variants"][v]
        print(f"  {v:<14}" + "  ".join(f"{row[c + '_step_ms']:>6.2f} ms" for c in CLOCKS))
        if v != "baseline":
            print(f"  {'  / baseline':<14}" + "  ".join(f"{row[c + '_ratio']:.3f} ({row[c + '_ci95'][0]:.3f}-"
                                                     f"{row[c + '_ci95'][1]:.3f})" for c in CLOCKS))
    print(f"  recorder / baseline {result['ratio']:.3f} per step (wall), goal <= {GOAL}: "
          f"{'met' if result['met'] else 'NOT met'}")
    print(f"  recorder cost per recorded collective: {raw['record_us']:.1f} us")
    print(f"  load average (1 min) before/after: {load_before[0]:.1f}/{load_after[0]:.1f} on {os.cpu_count()} CPUs")

if __name__ == "__main__":
    main()
