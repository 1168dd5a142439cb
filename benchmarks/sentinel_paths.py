"""Ways to read every gradient for inf/NaN once per step, timed inside a real fp32 training step (issue 18).

The workload is ``benchmarks/run.py``'s ``digits_mlp`` without GradScaler (the ``cases/fp16_overflow`` MLP on
scikit-learn's digits, batch 64, SGD momentum 0.9, CPU, one thread): zero_grad, forward, backward, the check,
``optimizer.step()``. Variants (each does one whole check of every gradient per step, except ``baseline``):

* ``baseline``: no check; ``baseline_again``: no check either, an A/A control (its distance from 1.000 is this
  run's noise);
* ``check``: ``GradientSentinel.check(step, optimizer)``, the public call;
* ``tripped``: ``GradientSentinel.tripped()``, what ``faultlib trace`` calls (no result object);
* ``kernel``: the floor of the fused path: ``torch._amp_foreach_non_finite_check_and_unscale_`` over a list of
  the gradients with an inverse scale of 1 and a read of a NumPy view of its flag, no other Python;
* ``step_prehook``: the same kernel in an optimizer step pre-hook (a hook ``optimizer.step()`` runs anyway);
* ``grad_hooks``: the kernel per parameter in a post-accumulate-grad hook, as each gradient is produced (still in
  cache), one flag read after backward;
* ``sums``: one sum per gradient, stacked, one read; ``foreach_max``: ``torch._foreach_max`` then one read;
  ``flatten``: the gradients copied into one flat tensor, one sum, one read;
* ``params_after``: the kernel over the parameters after ``optimizer.step()`` (a non-finite gradient makes the
  updated parameter non-finite for SGD and Adam): what reading the optimizer's output instead of the gradients
  would cost. It comes after the update (too late to skip it) and reads as many tensors, so it is timed only;
* ``shard2`` / ``shard4``: the kernel over a rotating shard, 1/k of the gradients (split by element count, largest
  first onto the lightest shard), a different shard each step, so every gradient is read every k steps; next to
  ``every2`` / ``every4``: the kernel over all gradients on one step in k (``check_every=k``). Both read each
  gradient once per k steps and trip within k steps of a value that stays; they differ in cost only (the
  kernel's fixed cost paid every step, or once per k steps);
* ``flat_base``: no check, the gradients views of one buffer (``GradientSentinel(flat_grads=True)``, whose
  ``zero_grad()`` zeroes the buffer in place of ``optimizer.zero_grad()``); ``flat``: the same with
  ``check()`` every step (one kernel call over the buffer); ``flat_kernel``: that call with no Python around it;
  ``flat_numpy``: a read-only pass over the same buffer with no torch dispatch (``numpy.add.reduce`` of its NumPy
  view: NaN and inf survive a sum). Their ``vs_flat`` column is the paired ratio to ``flat_base``;
* ``flat_reattach``: ``flat`` in a loop that keeps ``optimizer.zero_grad()`` (``set_to_none=True``) and calls the
  sentinel's ``zero_grad()`` after it, which puts the dropped views back every step (one ``p.grad = view`` per
  parameter) before zeroing the buffer;
* ``one_op``: one in-place op on a 1-element tensor and nothing else: the floor of any check that dispatches.

Method (as in ``trace_overhead.py``): every variant trains the same model with the same optimizer (separate models
sit at different addresses, which alone moved ratios by 1-2 % here); after a warm-up the variants run interleaved
in rounds, the order rotated every round. Per
variant: the median step, ``paired`` (median over rounds of the round-median ratio to the baseline's, with a
bootstrap 95 % interval), ``fastq`` (the same ratio of each round's fastest quarter of steps: load only ever adds
time), ``cpu`` (``time.process_time`` of all its rounds over the baseline's). The load average before and after is
printed. Always exits 0: timings are reported, not enforced. Usage:
``python benchmarks/sentinel_paths.py [--rounds N] [--steps-per-round N] [--quick] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import os
import statistics
import time

import numpy as np
import torch
from torch import nn

from faultlib.detect import GradientSentinel
from faultlib.workloads import digits_split
from run import BATCH, LR, SEED, bootstrap_median_ci, fp16_case  # benchmarks/ is first on sys.path

VARIANTS = ("baseline", "baseline_again", "check", "tripped", "kernel", "step_prehook", "grad_hooks", "sums",
            "foreach_max", "flatten", "params_after", "shard2", "every2", "shard4", "every4", "flat_base", "flat",
            "flat_kernel", "flat_numpy", "flat_reattach", "one_op")
FLAT = ("flat_base", "flat", "flat_kernel", "flat_numpy", "flat_reattach")
GRAD = operator.attrgetter("grad")


class Bench:
    """One model, optimizer and sentinel shared by every variant (so no variant gets a luckier memory layout);
    ``run(variant, n)`` returns n step times in ns. The hooks of a variant are registered for its rounds only."""

    def __init__(self, build, x, y, batches):
        torch.manual_seed(SEED)
        self.x, self.y, self.batches, self.i = x, y, batches, 0
        self.model = build()
        self.params = list(self.model.parameters())
        self.opt = torch.optim.SGD(self.params, lr=LR, momentum=0.9)
        self.sentinel = GradientSentinel(self.model.named_parameters())
        self.flat = GradientSentinel(self.model.named_parameters(), flat_grads=True)  # its views: FLAT rounds only
        self.flat_buffer = [self.flat._flat.buffer]
        self.flat_np, self.np_sum = self.flat._flat.buffer.numpy(), np.add.reduce
        self.flag, self.one = torch.zeros(1), torch.ones(1)
        self.host = self.flag.numpy()
        self.kernel_op = torch._amp_foreach_non_finite_check_and_unscale_
        self.shards = {k: shards(self.params, k) for k in (2, 4)}  # parameter indices per shard

    def kernel(self, tensors) -> None:
        self.kernel_op(tensors, self.flag, self.one)
        if self.host[0]:
            raise AssertionError("a healthy workload tripped")

    def _flat(self):
        assert not self.flat.check(self.i).overflow

    def _plain_zero_grad(self):
        self.opt.zero_grad(set_to_none=True)

    def _reattach_zero_grad(self):
        self.opt.zero_grad(set_to_none=True)  # the views dropped ...
        self.flat.zero_grad()  # ... and put back

    def _flat_reattach(self):
        self._flat()

    def _flat_numpy(self):
        assert math.isfinite(self.np_sum(self.flat_np))

    def _one_op(self):
        self.flag.zero_()  # the kernel's flag, zero anyway on this healthy workload

    def _flat_kernel(self):
        self.kernel(self.flat_buffer)

    def _check(self):
        assert not self.sentinel.check(self.i, self.opt).overflow

    def _tripped(self):
        found = self.sentinel.tripped()
        if found is None:  # the first step plans the layout
            self._check()
        elif found:
            raise AssertionError("a healthy workload tripped")

    def _kernel(self):
        self.kernel(list(map(GRAD, self.params)))

    def _shard(self, k: int):
        grads = list(map(GRAD, self.params))
        self.kernel([grads[i] for i in self.shards[k][self.i % k]])

    def _shard2(self):
        self._shard(2)

    def _shard4(self):
        self._shard(4)

    def _every2(self):
        if not self.i % 2:
            self._kernel()

    def _every4(self):
        if not self.i % 4:
            self._kernel()

    def _grad_hooks(self):
        if self.host[0]:
            raise AssertionError("a healthy workload tripped")

    def _sums(self):
        assert math.isfinite(torch.stack([g.sum() for g in map(GRAD, self.params)]).sum().item())

    def _foreach_max(self):
        assert math.isfinite(torch.stack(torch._foreach_max(list(map(GRAD, self.params)))).sum().item())

    def _flatten(self):
        assert math.isfinite(torch._utils._flatten_dense_tensors(list(map(GRAD, self.params))).sum().item())

    def _hooks(self, variant: str) -> list:
        if variant == "step_prehook":
            return [self.opt.register_step_pre_hook(lambda *_: self.kernel(list(map(GRAD, self.params))))]
        if variant == "grad_hooks":
            flag, one, op = self.flag, self.one, self.kernel_op
            return [p.register_post_accumulate_grad_hook(lambda p: op([p.grad], flag, one)) for p in self.params]
        return []

    def run(self, variant: str, n: int) -> list[int]:
        check = getattr(self, f"_{variant}", None)
        after = variant == "params_after"
        zero_grad = {"flat_reattach": self._reattach_zero_grad}.get(
            variant, self.flat.zero_grad if variant in FLAT else self._plain_zero_grad)
        handles = self._hooks(variant)
        times = []
        try:
            for _ in range(n):
                idx = self.batches[self.i % len(self.batches)]
                started = time.perf_counter_ns()
                zero_grad()
                nn.functional.cross_entropy(self.model(self.x[idx]), self.y[idx]).backward()
                if check is not None:
                    check()
                self.opt.step()
                if after:
                    with torch.no_grad():
                        self.kernel(self.params)
                times.append(time.perf_counter_ns() - started)
                self.i += 1
        finally:
            for handle in handles:
                handle.remove()
        return times


def shards(params: list, k: int) -> list[list[int]]:
    """``k`` lists of parameter indices with element counts as even as a greedy split makes them (largest first,
    each onto the shard with fewest elements so far)."""
    loads, members = [0] * k, [[] for _ in range(k)]
    for i in sorted(range(len(params)), key=lambda i: -params[i].numel()):
        j = loads.index(min(loads))
        loads[j] += params[i].numel()
        members[j].append(i)
    return [sorted(m) for m in members]


def _ci(ratios: list[float]) -> list[float]:
    """95 % bootstrap interval of the median of ``ratios``, rounded."""
    return [round(float(v), 4) for v in bootstrap_median_ci(ratios)]


def loadavg() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def measure(variants, rounds: int, per_round: int, warmup: int) -> dict:
    x, y, _, _ = digits_split(SEED)
    build = fp16_case().build_model
    gen = torch.Generator().manual_seed(SEED)
    batches = [torch.randint(0, len(x), (BATCH,), generator=gen) for _ in range(997)]
    bench = Bench(lambda: build(128), x, y, batches)
    for v in variants:
        bench.run(v, warmup)
    times = {v: [] for v in variants}
    cpu = dict.fromkeys(variants, 0.0)
    for k in range(rounds):
        for v in variants[k % len(variants):] + variants[:k % len(variants)]:
            started = time.process_time()
            times[v].append(bench.run(v, per_round))
            cpu[v] += time.process_time() - started

    def fastq(t):
        return statistics.fmean(sorted(t)[:max(1, len(t) // 4)])

    base = times["baseline"]
    result = {}
    for v in variants:
        paired = [statistics.median(a) / statistics.median(b) for a, b in zip(times[v], base)]
        fast = [fastq(a) / fastq(b) for a, b in zip(times[v], base)]
        flat = [statistics.median(a) / statistics.median(b) for a, b in zip(times[v], times.get("flat_base", base))]
        result[v] = {"vs_flat": round(statistics.median(flat), 4) if v in FLAT and "flat_base" in times else None,
                     "median_us": round(statistics.median(t for r in times[v] for t in r) / 1e3, 1),
                     "paired_ratio": round(statistics.median(paired), 4), "paired_ci95": _ci(paired),
                     "fast_quarter_ratio": round(statistics.median(fast), 4), "fast_quarter_ci95": _ci(fast),
                     "cpu_ratio": round(cpu[v] / cpu["baseline"], 4)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="interleaved rounds (default 60)")
    parser.add_argument("--steps-per-round", type=int, default=20, help="steps per variant and round (default 20)")
    parser.add_argument("--warmup", type=int, default=50, help="warm-up steps per variant (default 50)")
    parser.add_argument("--variant", choices=VARIANTS[1:], action="append",
                        help="time only these variants against the baseline (repeatable; default all)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 6 rounds of 5 steps, 10 warm-up")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.steps_per_round, args.warmup = 6, 5, 10
    torch.set_num_threads(1)
    variants = ("baseline", *(args.variant or VARIANTS[1:]))
    load_before = loadavg()
    result = measure(variants, max(1, args.rounds), max(1, args.steps_per_round), args.warmup)
    meta = {"rounds": args.rounds, "steps_per_round": args.steps_per_round, "warmup": args.warmup,
            "torch": torch.__version__, "loadavg_before": load_before, "loadavg_after": loadavg()}
    if args.json:
        print(json.dumps({"variants": result, "meta": meta}))
        return
    print(f"digits_mlp fp32 step, {args.rounds} rounds x {args.steps_per_round} steps per variant, torch "
          f"{torch.__version__}, 1 thread; load average {load_before} before, {meta['loadavg_after']} after")
    print(f"{'variant':<15}{'median_us':>10}{'paired':>8}{'paired_95%':>14}{'fastq':>7}{'fastq_95%':>14}{'cpu':>7}"
          f"{'vs_flat':>9}")
    for v, r in result.items():
        ci = f"{r['paired_ci95'][0]:.3f}-{r['paired_ci95'][1]:.3f}"
        fci = f"{r['fast_quarter_ci95'][0]:.3f}-{r['fast_quarter_ci95'][1]:.3f}"
        print(f"{v:<15}{r['median_us']:>10.1f}{r['paired_ratio']:>8.3f}{ci:>14}{r['fast_quarter_ratio']:>7.3f}"
              f"{fci:>14}{r['cpu_ratio']:>7.3f}{'' if r['vs_flat'] is None else format(r['vs_flat'], '.3f'):>9}")


if __name__ == "__main__":
    main()
