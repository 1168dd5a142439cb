"""GradientSentinel on a CUDA device: does it catch the step, and what does it cost per step?

``benchmarks/run.py`` measures the sentinel on CPU, where a check's host read is a memory load. On a GPU
the check is the fused ``torch._amp_foreach_non_finite_check_and_unscale_`` kernel (or the one GradScaler
already ran) plus one host read of its flag, which waits for the step's kernels: the cost that matters is
that synchronisation, not the kernel. This measures it on a GPT-sized decoder block stack (``--layers``
layers of ``nn.TransformerEncoderLayer`` with a causal mask, d_model ``--d-model``, batch ``--batch`` x
``--seq`` tokens, AdamW) in three precisions -- fp32, bf16 autocast, fp16 autocast + ``GradScaler`` -- and
two loop styles: ``async`` (the loop never reads a value back: the GPU runs ahead of Python) and ``logged``
(the loop calls ``loss.item()`` every step, as most training scripts do, so a host sync is already paid).

Variants per cell: ``baseline``, ``sentinel`` (``check_every=1``), ``sentinel_k8``. Method: identically
seeded models, the same batches, interleaved rounds of ``--steps`` steps (order rotated), each round timed
with ``sync(args)`` at its ends; the ratio per variant is the median over rounds of its round
time over the baseline's in the same round. Then the catch: a gradient set to inf from step ``--trip-step`` on
of a fresh run must be reported at that step (``check_every=1``) and within 8 steps at ``k=8``.

Needs a CUDA device; prints one table and exits 0 (timings are reported, not enforced), 2 without CUDA,
1 when a trip is missed. Usage: ``python benchmarks/sentinel_cuda.py [--rounds 12] [--steps 20]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
from torch import nn

from faultlib.detect import GradientSentinel

VARIANTS = {"baseline": None, "sentinel": 1, "sentinel_k8": 8}
PRECISIONS = ("fp32", "bf16", "fp16")


class Decoder(nn.Module):
    """Token embedding, ``layers`` causal self-attention blocks, a vocabulary head (a GPT-2-like stack)."""

    def __init__(self, vocab: int, d_model: int, layers: int, seq: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = nn.Parameter(torch.zeros(seq, d_model))
        block = nn.TransformerEncoderLayer(d_model, d_model // 64, 4 * d_model, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq), persistent=False)

    def forward(self, tokens):
        return self.head(self.blocks(self.embed(tokens) + self.pos, mask=self.mask, is_causal=True))


def sync(args) -> None:
    if args.device == "cuda":
        torch.cuda.synchronize()


class Run:
    def __init__(self, args, precision: str, every: int | None, batches):
        torch.manual_seed(0)
        self.model = Decoder(args.vocab, args.d_model, args.layers, args.seq).to(args.device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4, fused=args.device == "cuda")
        self.dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
        self.scaler = torch.amp.GradScaler(args.device, enabled=precision == "fp16")
        self.sentinel = None if every is None else GradientSentinel(
            self.model.named_parameters(), scaler=self.scaler if precision == "fp16" else None, check_every=every)
        self.batches, self.i, self.tripped, self.device = batches, 0, [], args.device

    def step(self, logged: bool, poison: bool = False) -> None:
        x, y = self.batches[self.i % len(self.batches)]
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast(self.device, dtype=self.dtype or torch.float32, enabled=self.dtype is not None):
            logits = self.model(x)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1).float(), y.flatten())
        self.scaler.scale(loss).backward()
        if poison:
            self.model.head.weight.grad[0, 0] = float("inf")
        self.scaler.unscale_(self.opt)
        if self.sentinel is not None:
            result = self.sentinel.check(self.i, self.opt)
            if result.overflow:
                self.tripped.append(self.i)
        self.scaler.step(self.opt)
        self.scaler.update()
        if logged:
            loss.item()
        self.i += 1


def measure(args, precision: str, logged: bool, batches) -> dict[str, float]:
    runs = {name: Run(args, precision, every, batches) for name, every in VARIANTS.items()}
    for run in runs.values():  # warm-up: kernels chosen, allocator settled
        for _ in range(args.steps):
            run.step(logged)
    sync(args)
    times: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            sync(args)
            t0 = time.perf_counter()
            for _ in range(args.steps):
                runs[name].step(logged)
            sync(args)
            times[name].append((time.perf_counter() - t0) / args.steps * 1e3)
    base = times["baseline"]
    out = {"baseline_ms": statistics.median(base)}
    for name in names[1:]:
        out[name] = statistics.median(t / b for t, b in zip(times[name], base))
    return out


def catches(args, precision: str, batches) -> dict[str, object]:
    found = {}
    for name, every in list(VARIANTS.items())[1:]:
        run = Run(args, precision, every, batches)
        for i in range(args.trip_step + 10):
            run.step(False, poison=i >= args.trip_step)  # a fault that persists: a one-off inf GradScaler skips is AMP at work
        first = run.tripped[0] if run.tripped else None
        found[name] = first
        found[f"{name}_ok"] = first is not None and args.trip_step <= first < args.trip_step + every
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=12, help="interleaved rounds (default 12)")
    ap.add_argument("--steps", type=int, default=20, help="steps per round and variant (default 20)")
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--precision", action="append", choices=PRECISIONS,
                    help="only these precisions (repeatable; default all)")
    ap.add_argument("--trip-step", type=int, default=13)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                    help="cpu: a smoke run of this script on a machine without a GPU (its timings mean nothing)")
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("needs a CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    g = torch.Generator(device=args.device).manual_seed(0)
    batches = [tuple(torch.randint(0, args.vocab, (args.batch, args.seq), device=args.device, generator=g)
                     for _ in range(2)) for _ in range(4)]
    rows = []
    for precision in args.precision or PRECISIONS:
        for logged in (False, True):
            row = {"precision": precision, "loop": "logged" if logged else "async",
                   **measure(args, precision, logged, batches)}
            rows.append(row)
            print(f"{precision:5} {row['loop']:7} step {row['baseline_ms']:7.2f} ms  sentinel "
                  f"{row['sentinel']:.3f}x  k=8 {row['sentinel_k8']:.3f}x", file=sys.stderr, flush=True)
        rows[-1]["catch"] = catches(args, precision, batches)
        print(f"{precision:5} catch   {rows[-1]['catch']}", file=sys.stderr, flush=True)
    device = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    if args.json:
        print(json.dumps({"device": device, "torch": torch.__version__, "args": vars(args), "rows": rows}))
    missed = [r["precision"] for r in rows if "catch" in r and not all(v for k, v in r["catch"].items()
                                                                       if k.endswith("_ok"))]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
