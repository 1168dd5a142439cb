"""The flight recorder and ``check collectives`` on a public DDP training script: karpathy/nanoGPT's ``train.py``
(measured at commit 3adf61e; its code is never copied here: pass a local checkout).

Runs ``train.py`` unchanged under ``torchrun --standalone --nproc-per-node 2`` on gloo and the CPU, on a tiny
config (2 layers, width 64, context 32, batch 4, 12 iterations, ``data/rand``: generated tokens; prepare it in
the checkout as ``data/rand/{train,val}.bin`` + ``meta.pkl`` with vocab 64), twice: healthy, then with rank 1
skipping one ``backward()`` (a per-rank ``continue`` on a batch). This file is also each rank's wrapper (env
``FR_WRAPPED=1``): it installs :class:`FlightRecorder` (DDP's buckets on DDP's built-in all-reduce, recorded per
backward; ``--per-bucket``: through the recorder's Python comm hook), maps
nanoGPT's CUDA-only DDP device (``cuda:LOCAL_RANK``) onto the CPU, and injects the skip. Prints, per run,
torchrun's exit code, the wall time and what ``check collectives`` reports.

Usage: ``python benchmarks/collectives_realworld.py NANOGPT_CHECKOUT [--skip-at N] [--json]``. Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import subprocess
import sys
import tempfile
import time

CONFIG = ["--dataset=rand", "--backend=gloo", "--device=cpu", "--compile=False", "--dtype=float32", "--n_layer=2",
          "--n_head=2", "--n_embd=64", "--block_size=32", "--batch_size=4", "--max_iters=12", "--eval_interval=1000",
          "--eval_iters=1", "--log_interval=1", "--gradient_accumulation_steps=2", "--always_save_checkpoint=False",
          "--dropout=0.0"]


def rank_wrapper() -> None:
    """Inside one rank: recorder, CPU mapping, the skip, then nanoGPT's train.py as ``__main__``."""
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from faultlib.detect.distributed import FlightRecorder

    rank = int(os.environ["RANK"])
    FlightRecorder(os.environ["FR_DUMP"], watchdog_s=5.0, skip_paths=(__file__,),
                   ddp_per_bucket=os.environ.get("FR_PER_BUCKET") == "1").install()
    torch.cuda.set_device = lambda *a, **k: None
    torch.Tensor.pin_memory = lambda self, *a, **k: self

    def cpu(a):
        cuda = (isinstance(a, str) and a.startswith("cuda")) or (isinstance(a, torch.device) and a.type == "cuda")
        return "cpu" if cuda else a

    for cls in (torch.Tensor, torch.nn.Module):
        def to(self, *a, _original=cls.to, **k):
            if "device" in k:
                k["device"] = cpu(k["device"])
            return _original(self, *(cpu(x) for x in a), **k)
        cls.to = to
    ddp_init = DDP.__init__

    def init(self, module, *a, **k):
        k.pop("device_ids", None)
        ddp_init(self, module, *a, **k)

    DDP.__init__ = init
    skip_at, backward, calls = int(os.environ.get("FR_SKIP_AT", "-1")), torch.Tensor.backward, [0]

    def skipping_backward(self, *a, **k):
        calls[0] += 1
        if rank == 1 and calls[0] == skip_at:
            return None  # rank 1 skips this batch's backward, and with it DDP's gradient all-reduce
        return backward(self, *a, **k)

    torch.Tensor.backward = skipping_backward
    checkout = os.environ["NANOGPT"]
    sys.path.insert(0, checkout)
    sys.argv = [os.path.join(checkout, "train.py"), *sys.argv[1:]]
    runpy.run_path(sys.argv[0], run_name="__main__")


def run(checkout: str, skip_at: int | None, per_bucket: bool = False) -> dict:
    from faultlib.detect.distributed import analyse_collectives, load_collective_dumps

    with tempfile.TemporaryDirectory(prefix="faultlib-nanogpt-") as tmp:
        env = {**os.environ, "FR_WRAPPED": "1", "FR_DUMP": os.path.join(tmp, "dumps"), "NANOGPT": checkout,
               "FR_SKIP_AT": str(skip_at if skip_at is not None else -1), "FR_PER_BUCKET": "1" if per_bucket else "0"}
        argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                "--max-restarts", "0", "--monitor-interval", "0.5", os.path.abspath(__file__), *CONFIG,
                f"--out_dir={os.path.join(tmp, 'out')}"]
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
        took = time.monotonic() - start
        report = analyse_collectives(load_collective_dumps(env["FR_DUMP"]))
        return {"skip_at_backward": skip_at, "exit_code": proc.returncode, "seconds": round(took, 1),
                "first_divergence": report.first_divergence, "waiting": report.waiting_ranks,
                "findings": [f"{f.kind}: {f.message}" for f in report.findings]}


def main() -> None:
    if os.environ.get("FR_WRAPPED") == "1":
        rank_wrapper()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", help="a local checkout of karpathy/nanoGPT (with data/rand prepared)")
    parser.add_argument("--skip-at", type=int, default=6, help="rank 1 skips its N-th backward() (default 6: iteration 5)")
    parser.add_argument("--per-bucket", action="store_true", help="DDP's buckets through the recorder's Python hook")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [run(args.checkout, None, args.per_bucket), run(args.checkout, args.skip_at, args.per_bucket)]
    if args.json:
        print(json.dumps(results))
        return
    for r in results:
        label = "healthy" if r["skip_at_backward"] is None else f"rank 1 skips backward #{r['skip_at_backward']}"
        print(f"{label}: torchrun exit {r['exit_code']} in {r['seconds']} s")
        first = r["first_divergence"]
        print(f"  first divergence: {json.dumps(first) if first else 'none'}")
        for line in r["findings"]:
            print(f"  {line[:200]}")


if __name__ == "__main__":
    main()
