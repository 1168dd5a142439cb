"""Cost of ``faultlib trace``'s watch pass (the first run of the script), in the same process as its baseline.

Workloads (CPU, one thread, a small GPT of this file: vocab 64, context 32, 2 blocks of width 64, 4 heads):

* ``generate``: 500 forward calls of the GPT under ``torch.no_grad()``, each followed by sampling
  (softmax, ``torch.multinomial``), the context sliding at 32 tokens: an inference script;
* ``train_gpt``: training steps of the same GPT (cross-entropy, ``clip_grad_norm_``, AdamW);
* ``train_mlp``: training steps of a 64-128-128-10 MLP (batch 64, SGD momentum 0.9, no clipping).

Variants: ``baseline`` (nothing installed) and ``watch`` (:class:`faultlib.trace.boot.Tracer` installed as the
watch pass installs it: module-call tracking, the outermost module's output check, the check of the tensor
``backward()`` is called on, the read of ``clip_grad_norm_``'s total norm or else the gradient check at
``optimizer.step()``). The tracer is installed before and removed after each ``watch`` round, so both variants
run interleaved in one process on the same batches (order alternated every round); a round is 25 forward calls
(``generate``) or 10 steps (training). Reported per workload: the median over rounds of the watch round's time
over the baseline round's next to it (paired ratio) with a bootstrap 95 % interval, and the median times.

Goals (issue 18): ``generate`` <= 1.10, training steps <= 1.03. The script always exits 0.
Usage: ``python benchmarks/trace_overhead.py [--rounds N] [--quick] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import torch
from torch import nn

from faultlib.trace.boot import Tracer

GOALS = {"generate": 1.10, "train_gpt": 1.03, "train_mlp": 1.03}
VOCAB, CONTEXT, WIDTH, HEADS = 64, 32, 64, 4


class Block(nn.Module):
    """Pre-norm transformer block: causal self-attention written out (masked_fill, softmax), then an MLP."""

    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(WIDTH), nn.LayerNorm(WIDTH)
        self.qkv, self.proj = nn.Linear(WIDTH, 3 * WIDTH), nn.Linear(WIDTH, WIDTH)
        self.mlp = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(), nn.Linear(4 * WIDTH, WIDTH))
        self.register_buffer("causal", torch.tril(torch.ones(CONTEXT, CONTEXT, dtype=torch.bool)))

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, HEADS, WIDTH // HEADS).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2)) / (WIDTH // HEADS) ** 0.5
        scores = scores.masked_fill(~self.causal[:t, :t], float("-inf"))
        y = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, WIDTH)
        x = x + self.proj(y)
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(VOCAB, WIDTH), nn.Embedding(CONTEXT, WIDTH)
        self.blocks = nn.Sequential(Block(), Block())
        self.norm, self.head = nn.LayerNorm(WIDTH), nn.Linear(WIDTH, VOCAB)

    def forward(self, idx):
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1]))
        return self.head(self.norm(self.blocks(x)))


class Workload:
    """One workload's state (model, optimizer, data); :meth:`round` runs one timed round, returns ns."""

    def __init__(self, name: str, seed: int = 0):
        torch.manual_seed(seed)
        self.name = name
        if name == "train_mlp":
            self.model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                                       nn.Linear(128, 10))
            self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)
            self.x, self.y = torch.randn(64, 64), torch.randint(0, 10, (64,))
        else:
            self.model = TinyGPT()
            self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
            self.tokens = torch.randint(0, VOCAB, (8, CONTEXT + 1))
            self.idx = torch.zeros(1, 1, dtype=torch.long)

    def round(self) -> int:
        started = time.perf_counter_ns()
        if self.name == "generate":
            with torch.no_grad():
                for _ in range(25):
                    logits = self.model(self.idx[:, -CONTEXT:])[:, -1, :]
                    nxt = torch.multinomial(torch.softmax(logits, -1), 1)
                    self.idx = torch.cat([self.idx, nxt], 1)[:, -CONTEXT:]
        else:
            for _ in range(10):
                if self.name == "train_mlp":
                    loss = nn.functional.cross_entropy(self.model(self.x), self.y)
                else:
                    logits = self.model(self.tokens[:, :-1])
                    loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), self.tokens[:, 1:].reshape(-1))
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                if self.name == "train_gpt":
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.opt.step()
        return time.perf_counter_ns() - started


def measure(name: str, rounds: int, warmup: int) -> dict:
    """Interleaved rounds of one workload: the baseline and the watch pass share the model and the data."""
    work = Workload(name)
    tracer = Tracer(arm_at=None, keep_going=True, dump_path=None)
    for _ in range(warmup):
        work.round()
    base, watch = [], []
    for k in range(rounds):
        for variant in (("baseline", "watch") if k % 2 == 0 else ("watch", "baseline")):
            if variant == "watch":
                tracer.install()
                try:
                    watch.append(work.round())
                finally:
                    tracer.uninstall()
            else:
                base.append(work.round())
    ratios = [w / b for w, b in zip(watch, base)]
    rng = np.random.default_rng(0)
    boot = np.median(np.asarray(ratios)[rng.integers(0, len(ratios), (1000, len(ratios)))], axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    assert tracer.trip is None, tracer.trip  # a healthy workload: nothing may trip
    return {"baseline_ms": round(statistics.median(base) / 1e6, 3), "watch_ms": round(statistics.median(watch) / 1e6, 3),
            "paired_ratio": round(statistics.median(ratios), 4), "paired_ci95": [round(lo, 4), round(hi, 4)],
            "goal": GOALS[name], "ok": statistics.median(ratios) <= GOALS[name]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=80, help="rounds per variant and workload (default 80)")
    parser.add_argument("--warmup", type=int, default=5, help="warm-up rounds (default 5)")
    parser.add_argument("--workload", choices=sorted(GOALS), action="append", help="only these (repeatable)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 6 rounds, 1 warm-up")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.warmup = 6, 1
    torch.set_num_threads(1)
    results = {name: measure(name, args.rounds, args.warmup) for name in GOALS
               if not args.workload or name in args.workload}
    if args.json:
        print(json.dumps({"workloads": results, "meta": {"rounds": args.rounds, "torch": torch.__version__}}))
        return
    print(f"{args.rounds} interleaved rounds per variant, torch {torch.__version__}, 1 thread")
    print(f"{'workload':<11}{'baseline_ms':>12}{'watch_ms':>10}{'paired':>8}{'95%':>15}{'goal':>6}  verdict")
    for name, r in results.items():
        ci = f"{r['paired_ci95'][0]:.3f}-{r['paired_ci95'][1]:.3f}"
        print(f"{name:<11}{r['baseline_ms']:>12.3f}{r['watch_ms']:>10.3f}{r['paired_ratio']:>8.3f}{ci:>15}"
              f"{r['goal']:>6.2f}  {'OK' if r['ok'] else 'ABOVE GOAL'}")


if __name__ == "__main__":
    main()
