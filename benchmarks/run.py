"""Per-step cost of the fp16 overflow sentinel, next to PyTorch's anomaly mode.

Model and data are those of ``cases/fp16_overflow`` (``build_model(hidden=128)`` on
scikit-learn digits, batch 64, SGD momentum 0.9, ``torch.autocast("cpu", float16)`` with
``torch.amp.GradScaler("cpu")``). Three variants of one training step are timed:

* ``baseline``: zero_grad, autocast forward, cross_entropy, scaled backward,
  ``scaler.unscale_``, ``scaler.step``, ``scaler.update``;
* ``sentinel``: the same plus ``OverflowSentinel(..., scaler=scaler).check(step, optimizer)``
  right after ``unscale_`` (reuses GradScaler's fused inf/NaN result: the recommended use);
* ``sentinel_own_pass``: the sentinel without a scaler, making its own pass over the
  gradients (what it costs in fp32 training or before ``unscale_``);
* ``anomaly``: the baseline step under ``torch.autograd.set_detect_anomaly(True)``,
  the stock PyTorch alternative, shown for comparison only.

Method: one thread (``torch.set_num_threads(1)``); each variant has its own identically
seeded model, optimizer and scaler and sees the same batches, so all do the same work;
each is warmed up, then the steps are interleaved in short rounds (default 60 rounds of
10 steps, order rotated every round) so machine noise and drift hit all variants alike.
Every step is timed with ``time.perf_counter_ns``. Reported: median per-step time, the
ratio median(variant) / median(baseline), a bootstrap 95 % interval of that ratio, and
the paired ratio: the median over rounds of (round median / baseline's same-round median).

Goal: the sentinel adds under 3 % per step (ratio < 1.03). The script always exits 0:
timings are reported, not enforced.

Usage (from the repository root): ``python benchmarks/run.py [--steps N] [--quick] [--json]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from faultlib.detect import OverflowSentinel

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.03
VARIANTS = ("baseline", "sentinel", "sentinel_own_pass", "anomaly")
BATCH, HIDDEN, LR, SEED = 64, 128, 0.1, 0


def load_case():
    """Import build_model / load_data from the case's repro.py without running its main()."""
    spec = importlib.util.spec_from_file_location("fp16_overflow_repro", ROOT / "cases/fp16_overflow/repro.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_model, module.load_data


class Runner:
    """One variant's model, optimizer, scaler and step counter; ``step()`` returns nanoseconds."""

    def __init__(self, variant, build_model, x, y, batches):
        torch.manual_seed(SEED)
        self.variant, self.x, self.y, self.batches, self.i = variant, x, y, batches, 0
        self.model = build_model(HIDDEN)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR, momentum=0.9)
        self.scaler = torch.amp.GradScaler("cpu", init_scale=65536.0)
        self.sentinel = None
        if variant == "sentinel":
            self.sentinel = OverflowSentinel(self.model.named_parameters(), scaler=self.scaler)
        elif variant == "sentinel_own_pass":
            self.sentinel = OverflowSentinel(self.model.named_parameters())

    def step(self) -> int:
        model, opt, scaler = self.model, self.opt, self.scaler
        idx = self.batches[self.i % len(self.batches)]
        started = time.perf_counter_ns()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(self.x[idx]), self.y[idx])
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        if self.sentinel is not None:
            self.sentinel.check(self.i, opt)
        scaler.step(opt)
        scaler.update()
        elapsed = time.perf_counter_ns() - started
        self.i += 1
        return elapsed

    def run(self, n: int) -> list[int]:
        if self.variant != "anomaly":
            return [self.step() for _ in range(n)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            with torch.autograd.set_detect_anomaly(True):
                return [self.step() for _ in range(n)]


def bootstrap_ratio_ci(a, b, reps=1000, seed=0):
    """95 % bootstrap interval of median(a) / median(b)."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(a, float), np.asarray(b, float)
    ma = np.median(a[rng.integers(0, len(a), (reps, len(a)))], axis=1)
    mb = np.median(b[rng.integers(0, len(b), (reps, len(b)))], axis=1)
    return tuple(np.percentile(ma / mb, [2.5, 97.5]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="measured steps per variant (default 600)")
    parser.add_argument("--rounds", type=int, default=60, help="interleaved rounds (default 60)")
    parser.add_argument("--warmup", type=int, default=50, help="warm-up steps per variant (default 50)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 60 steps, 6 rounds, 10 warm-up")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.rounds, args.warmup = 60, 6, 10
    rounds = max(1, args.rounds)
    per_round = max(1, -(-args.steps // rounds))

    torch.set_num_threads(1)
    build_model, load_data = load_case()
    x, y, _, _ = load_data(SEED)
    gen = torch.Generator().manual_seed(SEED)
    batches = [torch.randint(0, len(x), (BATCH,), generator=gen) for _ in range(args.warmup + rounds * per_round)]
    runners = {v: Runner(v, build_model, x, y, batches) for v in VARIANTS}

    for r in runners.values():
        r.run(args.warmup)
    times = {v: [] for v in VARIANTS}
    round_medians = {v: [] for v in VARIANTS}
    for k in range(rounds):
        for v in VARIANTS[k % len(VARIANTS):] + VARIANTS[:k % len(VARIANTS)]:  # rotate the order
            t = runners[v].run(per_round)
            times[v] += t
            round_medians[v].append(statistics.median(t))

    base = statistics.median(times["baseline"])
    result = {}
    for v in VARIANTS:
        med = statistics.median(times[v])
        per_round_ratio = [m / b for m, b in zip(round_medians[v], round_medians["baseline"])]
        lo, hi = bootstrap_ratio_ci(times[v], times["baseline"])
        result[v] = {"median_us": round(med / 1e3, 1), "ratio": round(med / base, 4),
                     "ci95": [round(lo, 4), round(hi, 4)],
                     "paired_ratio": round(statistics.median(per_round_ratio), 4)}
    ok = result["sentinel"]["ratio"] < GOAL
    meta = {"steps_per_variant": rounds * per_round, "rounds": rounds, "warmup": args.warmup,
            "torch": torch.__version__, "threads": torch.get_num_threads()}

    if args.json:
        print(json.dumps({**result, "goal": {"sentinel_ratio_below": GOAL, "ok": ok}, "meta": meta}))
        return
    print(f"fp16_overflow model, {meta['steps_per_variant']} steps/variant in {rounds} interleaved rounds, "
          f"{args.warmup} warm-up, torch {torch.__version__}, 1 thread")
    print(f"{'variant':<19}{'median_us':>11}{'ratio_vs_baseline':>19}{'bootstrap_95%':>16}{'paired_ratio':>14}")
    for v, r in result.items():
        ci = f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}"
        print(f"{v:<19}{r['median_us']:>11.1f}{r['ratio']:>19.3f}{ci:>16}{r['paired_ratio']:>14.3f}")
    print(f"goal: sentinel < {GOAL:.2f} -> {'OK' if ok else 'ABOVE GOAL'}")


if __name__ == "__main__":
    main()
