"""Cost of the collective flight recorder on a real DDP training step (2 ranks, gloo, CPU), same-run ratio.

Workload per rank (one thread, ``torch.set_num_threads(1)``): an MLP 256-1024-1024-10 (about 1.3 M parameters,
DDP's gradient all-reduce of 5 MB in buckets), batch 64 of fixed random data, SGD; each step also all-reduces
the loss for logging through the Python API, as training loops do.

Variants, interleaved in one world on the same data (the order of the three rotates every round):

* ``baseline``: DDP as users run it, its built-in (C++) gradient all-reduce, the loss all-reduce unwrapped;
* ``hook``: DDP's gradient all-reduce through PyTorch's own Python ``default_hooks.allreduce_hook`` (what the
  recorder's hook runs), no recorder: the cost of leaving DDP's C++ path, apart from the recorder's;
* ``recorder``: :class:`faultlib.detect.distributed.FlightRecorder` installed (watchdog on, 60 s) and DDP's
  gradient all-reduce through :meth:`~FlightRecorder.ddp_comm_hook`, so every bucket and the loss all-reduce
  are recorded; installed before and removed after each of its rounds.

A DDP model takes one comm hook for life, so each variant has its own DDP model (same architecture, same
initial weights). A round is ``--steps`` steps (default 10). Rank 0 times each round (the collectives keep the
ranks in step); reported: the median over rounds of ``recorder`` / ``baseline`` and ``recorder`` / ``hook`` (paired
ratios of adjacent rounds) with bootstrap 95 % intervals, the median step times, the recorder's own cost per
recorded collective (µs, from a loop of ``record`` calls) and the load average while it ran.
Goal (issue 20): ``recorder`` / ``baseline`` <= 1.02.

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

    baseline, hooked, recorded = ddp(_model()), ddp(_model()), ddp(_model())
    dump_dir = tempfile.mkdtemp(prefix="faultlib-fr-bench-")
    recorder = FlightRecorder(dump_dir, watchdog_s=60.0, signum=None)
    hooked.register_comm_hook(None, default_hooks.allreduce_hook)
    recorded.register_comm_hook(None, recorder.ddp_comm_hook())
    gen = torch.Generator().manual_seed(rank)
    x, y = torch.randn(64, SIZES[0], generator=gen), torch.randint(0, 10, (64,), generator=gen)
    models = {"baseline": baseline, "hook": hooked, "recorder": recorded}
    optimizers = {k: torch.optim.SGD(m.parameters(), lr=0.01) for k, m in models.items()}

    def round_ns(variant: str) -> int:
        model, opt = models[variant], optimizers[variant]
        if variant == "recorder":
            recorder.install()
        try:
            dist.barrier()
            start = time.perf_counter_ns()
            for _ in range(args["steps"]):
                loss = torch.nn.functional.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                logged = loss.detach().clone()
                dist.all_reduce(logged)  # the loss, for logging
            return time.perf_counter_ns() - start
        finally:
            if variant == "recorder":
                recorder.uninstall()

    variants = ("baseline", "hook", "recorder")
    for i in range(args["warmup"]):
        round_ns(variants[i % 3])
    pairs = []
    for i in range(args["rounds"]):
        order = variants[i % 3:] + variants[:i % 3]
        times = {v: round_ns(v) for v in order}
        pairs.append((times["baseline"], times["recorder"], times["hook"]))
    os.rmdir(dump_dir)
    recorder.install()
    n = 20_000
    start = time.perf_counter_ns()
    for _ in range(n):
        recorder.complete(recorder.record("all_reduce", [x]))
    per_call_us = (time.perf_counter_ns() - start) / n / 1e3
    recorder.uninstall()
    if rank == 0:
        with open(out_path, "w") as fh:
            json.dump({"pairs": pairs, "record_us": per_call_us}, fh)
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
    ratios = [r / b for b, r, _ in raw["pairs"]]
    vs_hook = [r / h for _, r, h in raw["pairs"]]
    low, high = bootstrap_ci(ratios)
    hook_low, hook_high = bootstrap_ci(vs_hook)
    ms = {name: statistics.median(t[i] for t in raw["pairs"]) / args["steps"] / 1e6
          for i, name in enumerate(("baseline", "recorder", "hook"))}
    result = {"ratio": statistics.median(ratios), "ci95": [low, high], "goal": GOAL,
              "met": statistics.median(ratios) <= GOAL,
              "ratio_vs_hook": statistics.median(vs_hook), "ci95_vs_hook": [hook_low, hook_high],
              "baseline_step_ms": ms["baseline"], "hook_step_ms": ms["hook"], "recorder_step_ms": ms["recorder"],
              "record_us_per_collective": raw["record_us"], "pairs": len(ratios), "steps_per_round": args["steps"],
              "loadavg_1m": [load_before[0], load_after[0]], "cpus": os.cpu_count(), "torch": torch.__version__}
    if ns.json:
        print(json.dumps(result))
        return
    print(f"flight recorder on a DDP step (2 ranks, gloo, MLP {'-'.join(map(str, SIZES))}, batch 64):")
    print(f"  step: baseline {ms['baseline']:.2f} ms, Python hook {ms['hook']:.2f} ms, recorder {ms['recorder']:.2f} ms")
    print(f"  recorder / baseline {result['ratio']:.3f} (95 % CI {low:.3f}-{high:.3f}), goal <= {GOAL}: "
          f"{'met' if result['met'] else 'NOT met'}")
    print(f"  recorder / Python hook {result['ratio_vs_hook']:.3f} (95 % CI {hook_low:.3f}-{hook_high:.3f})")
    print(f"  recorder cost per recorded collective: {raw['record_us']:.1f} us")
    print(f"  load average (1 min) before/after: {load_before[0]:.1f}/{load_after[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
