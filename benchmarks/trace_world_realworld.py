"""`faultlib trace -- torchrun ...` on karpathy/nanoGPT's train.py: a NaN injected on one rank; what trace reports.

Usage: python benchmarks/trace_world_realworld.py NANOGPT_CHECKOUT [--json]

Measured, never copied: the checkout is copied into a temp dir outside this repository, where three lines are
changed so that its DDP path runs on CPU (``device = f'cuda:{ddp_local_rank}'`` and
``torch.cuda.set_device(device)`` become no-ops, ``DDP(model, device_ids=[ddp_local_rank])`` becomes ``DDP(model)``);
the data is generated (uint16 tokens, vocabulary 65); the fault comes from a sitecustomize written here: on rank
``FAULT_RANK``, the ``FAULT_CALL``-th training call of the token embedding returns one NaN. The world: 2 ranks,
gloo, ``--compile=False --dtype=float32``, a 2-layer 32-wide model, 4 gradient-accumulation micro-steps (2 per
rank: DDP syncs on the last one). Measured at karpathy/nanoGPT@3adf61e154c3fe3fca428ad6bc3818b27a3b8291.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EDITS = [("    device = f'cuda:{ddp_local_rank}'", "    pass  # CPU: keep --device"),
         ("    torch.cuda.set_device(device)", "    pass  # CPU: no cuda device"),
         ("model = DDP(model, device_ids=[ddp_local_rank])", "model = DDP(model)")]
ARGS = ["--dataset=tiny", "--device=cpu", "--backend=gloo", "--compile=False", "--dtype=float32", "--n_layer=2",
        "--n_head=2", "--n_embd=32", "--block_size=32", "--batch_size=4", "--gradient_accumulation_steps=4",
        "--max_iters=6", "--eval_interval=1000", "--eval_iters=1", "--log_interval=1", "--dropout=0.0"]
INJECT = '''import os

if os.environ.get("RANK") is not None and os.environ.get("RANK") == os.environ.get("FAULT_RANK"):
    import torch

    _calls = {"n": 0}
    _original = torch.nn.Embedding.forward

    def forward(self, ids):
        out = _original(self, ids)
        if self.training and out.dim() == 3:
            _calls["n"] += 1
            if _calls["n"] == int(os.environ.get("FAULT_CALL", "5")):
                out = out.clone()
                out[0, 3, 7] = float("nan")
        return out

    torch.nn.Embedding.forward = forward
'''
# (fault rank, embedding call): call 5 on rank 1 is iteration 2's first micro-step, call 7 on rank 0 iteration 3's
CASES = [(None, None), (1, 5), (0, 7)]


def prepare(checkout: Path, work: Path) -> None:
    for name in ("train.py", "model.py", "configurator.py"):
        shutil.copy(checkout / name, work / name)
    text = (work / "train.py").read_text()
    for old, new in EDITS:
        if old not in text:
            raise SystemExit(f"{checkout}/train.py: no line {old!r} (another nanoGPT revision?)")
        text = text.replace(old, new)
    (work / "train.py").write_text(text)
    import numpy as np

    data = work / "data" / "tiny"
    data.mkdir(parents=True)
    rng = np.random.default_rng(0)
    rng.integers(0, 65, 20000, dtype=np.uint16).tofile(data / "train.bin")
    rng.integers(0, 65, 4000, dtype=np.uint16).tofile(data / "val.bin")
    import pickle

    with open(data / "meta.pkl", "wb") as fh:
        pickle.dump({"vocab_size": 65}, fh)
    (work / "inject").mkdir()
    (work / "inject" / "sitecustomize.py").write_text(INJECT)


def run(work: Path, fault_rank: int | None, call: int | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(work / "inject")}
    if fault_rank is not None:
        env.update(FAULT_RANK=str(fault_rank), FAULT_CALL=str(call))
    out = work / f"dump-{fault_rank}"
    proc = subprocess.run([sys.executable, "-m", "faultlib", "trace", "--json", "--quiet-replay", "--dump-dir",
                           str(out), "--", "torchrun", "--standalone", "--nproc-per-node", "2", "train.py", *ARGS,
                           f"--out_dir={work / 'out'}"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"] or {}
    received = [{"rank": r["rank"], **{k: (r["received"] or {}).get(k) for k in ("op", "seq", "step")},
                 "line": ((r["received"] or {}).get("call_site") or {}).get("line")}
                for r in report["ranks"] or [] if r["role"] == "received"]
    return {"fault_rank": fault_rank, "exit": proc.returncode, "first_rank": report["first_rank"],
            "step": first.get("step"), "phase": first.get("phase"), "module": first.get("module"),
            "op": first.get("op"), "line": f"{Path(first['file']).name}:{first['line']}" if first.get("file") else None,
            "received": received, "replayed": report["replayed"]}


def main(argv: list[str]) -> int:
    if not argv or not (Path(argv[0]) / "train.py").is_file():
        print(__doc__, file=sys.stderr)
        return 2
    rows = []
    with tempfile.TemporaryDirectory(prefix="faultlib-nanogpt-") as tmp:
        work = Path(tmp)
        prepare(Path(argv[0]), work)
        rows = [run(work, rank, call) for rank, call in CASES]
    if "--json" in argv:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        got = "; ".join(f"rank {r['rank']} received via {r['op']} seq {r['seq']} (step {r['step']}, train.py:{r['line']})"
                        for r in row["received"]) or "-"
        print(f"injected on rank {row['fault_rank']}: exit {row['exit']}, first rank {row['first_rank']}, step "
              f"{row['step']}, {row['module']} {row['op']} {row['line']}; {got}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
