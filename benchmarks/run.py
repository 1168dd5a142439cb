"""Per-step cost of faultlib's gradient sentinels, next to PyTorch's anomaly mode.

Workloads (all on scikit-learn's digits, batch 64, SGD momentum 0.9, CPU, one thread):

* ``fp16_mlp``: the model of ``cases/fp16_overflow`` under ``torch.autocast("cpu", float16)``
  with ``torch.amp.GradScaler`` (the sentinel reuses the scaler's fused inf/NaN check);
* ``digits_mlp``: the same MLP in fp32 (the sentinel makes its own pass over the gradients);
* ``transformer``: a real ``nn.TransformerEncoder`` (2 layers, d_model 32, 4 heads) reading each
  8x8 digit as 8 tokens of 8 pixels.

Variants of one training step: ``baseline`` (no checks); ``sentinel`` (``GradientSentinel.check``
after backward); ``sentinel_outputs`` (the sentinel also checking every module's forward output);
``anomaly`` (the baseline under ``torch.autograd.set_detect_anomaly(True)``, for comparison).

Method: each variant has its own identically seeded model and optimizer and sees the same
batches; after a warm-up the variants run interleaved in short rounds (order rotated every
round) so machine noise and drift hit all alike; every step is timed with ``perf_counter_ns``.
Reported: median per-step time, its ratio to the baseline measured in the same run, a bootstrap
95 % interval of that ratio, and the paired ratio (median over rounds of round-median ratios).

Goal: the sentinel adds under 3 % per step (ratio < 1.03). The script always exits 0: timings
are reported, not enforced. Usage: ``python benchmarks/run.py [--steps N] [--quick] [--json]``.
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

from faultlib.detect import GradientSentinel
from faultlib.workloads import digits_split

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.03
VARIANTS = ("baseline", "sentinel", "sentinel_outputs", "anomaly")
BATCH, LR, SEED = 64, 0.05, 0


def fp16_case():
    """cases/fp16_overflow/repro.py (for build_model), imported without running main()."""
    spec = importlib.util.spec_from_file_location("fp16_overflow_repro", ROOT / "cases/fp16_overflow/repro.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class DigitsTransformer(nn.Module):
    """Each 8x8 digit as 8 tokens of 8 pixels through a 2-layer TransformerEncoder."""

    def __init__(self, d_model: int = 32):
        super().__init__()
        self.embed = nn.Linear(8, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, 10)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x.view(-1, 8, 8))).mean(dim=1))


def workloads():
    case = fp16_case()
    return {"fp16_mlp": (lambda: case.build_model(128), True),
            "digits_mlp": (lambda: case.build_model(128), False),
            "transformer": (DigitsTransformer, False)}


class Runner:
    """One (workload, variant): model, optimizer, scaler; ``run(n)`` returns n step times in ns."""

    def __init__(self, variant, build, amp, x, y, batches):
        torch.manual_seed(SEED)
        self.variant, self.amp, self.x, self.y, self.batches, self.i = variant, amp, x, y, batches, 0
        self.model = build()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR, momentum=0.9)
        self.scaler = torch.amp.GradScaler("cpu", enabled=amp)
        self.sentinel = None
        if variant in ("sentinel", "sentinel_outputs"):
            self.sentinel = GradientSentinel(self.model.named_parameters(), scaler=self.scaler if amp else None,
                                             watch_outputs=self.model if variant == "sentinel_outputs" else None)

    def step(self) -> int:
        idx = self.batches[self.i % len(self.batches)]
        started = time.perf_counter_ns()
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16, enabled=self.amp):
            loss = nn.functional.cross_entropy(self.model(self.x[idx]), self.y[idx])
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.opt)
        if self.sentinel is not None:
            self.sentinel.check(self.i, self.opt)
        self.scaler.step(self.opt)
        self.scaler.update()
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


def measure(build, amp, x, y, *, steps: int, rounds: int, warmup: int) -> dict:
    per_round = max(1, -(-steps // rounds))
    gen = torch.Generator().manual_seed(SEED)
    batches = [torch.randint(0, len(x), (BATCH,), generator=gen) for _ in range(warmup + rounds * per_round)]
    runners = {v: Runner(v, build, amp, x, y, batches) for v in VARIANTS}
    for runner in runners.values():
        runner.run(warmup)
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
        paired = statistics.median(m / b for m, b in zip(round_medians[v], round_medians["baseline"]))
        lo, hi = bootstrap_ratio_ci(times[v], times["baseline"])
        result[v] = {"median_us": round(med / 1e3, 1), "ratio": round(med / base, 4),
                     "ci95": [round(lo, 4), round(hi, 4)], "paired_ratio": round(paired, 4)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="measured steps per variant (default 600)")
    parser.add_argument("--rounds", type=int, default=60, help="interleaved rounds (default 60)")
    parser.add_argument("--warmup", type=int, default=50, help="warm-up steps per variant (default 50)")
    parser.add_argument("--workload", choices=["fp16_mlp", "digits_mlp", "transformer"], action="append",
                        help="run only these workloads (repeatable; default all)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 60 steps, 6 rounds, 10 warm-up")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.rounds, args.warmup = 60, 6, 10
    torch.set_num_threads(1)
    all_workloads = workloads()
    x, y, _, _ = digits_split(SEED)
    results = {}
    for name, (build, amp) in all_workloads.items():
        if args.workload and name not in args.workload:
            continue
        results[name] = measure(build, amp, x, y, steps=args.steps, rounds=max(1, args.rounds), warmup=args.warmup)
    ok = all(r["sentinel"]["ratio"] < GOAL for r in results.values())
    meta = {"steps_per_variant": args.steps, "rounds": args.rounds, "warmup": args.warmup,
            "torch": torch.__version__, "threads": torch.get_num_threads()}
    if args.json:
        print(json.dumps({"workloads": results, "goal": {"sentinel_ratio_below": GOAL, "ok": ok}, "meta": meta}))
        return
    print(f"{args.steps} steps/variant in {args.rounds} interleaved rounds, {args.warmup} warm-up, "
          f"torch {torch.__version__}, 1 thread")
    for name, result in results.items():
        print(f"\n{name}")
        print(f"{'variant':<19}{'median_us':>11}{'ratio_vs_baseline':>19}{'bootstrap_95%':>16}{'paired_ratio':>14}")
        for v, r in result.items():
            ci = f"{r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}"
            print(f"{v:<19}{r['median_us']:>11.1f}{r['ratio']:>19.3f}{ci:>16}{r['paired_ratio']:>14.3f}")
    print(f"\ngoal: sentinel < {GOAL:.2f} on every workload -> {'OK' if ok else 'ABOVE GOAL'}")


if __name__ == "__main__":
    main()
