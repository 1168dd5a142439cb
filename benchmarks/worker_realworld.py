"""PyTorch's own message vs WorkerWatch's report, on a public DDP training script's dataset, model and data file.

Target: pytorch/examples ``distributed/minGPT-ddp/mingpt`` (``char_dataset.CharDataset`` reads ``data/input.txt``
through fsspec; ``model.GPT``; its ``trainer.Trainer._prepare_dataloader`` builds ``DataLoader(batch_size,
pin_memory=True, shuffle=False, num_workers=data_loader_workers, sampler=DistributedSampler(dataset))``). Its
trainer and ``main.py`` are GPU-only (``model.to(local_rank)``, hydra), so the world is driven by a small driver
this script writes into a temp dir: ``torchrun --nproc-per-node 2`` (gloo, CPU), the fetched ``CharDataset``
(truncate 0.05, block 32) and ``GPT`` (2 layers, width 64), the trainer's DataLoader settings with 2 workers,
``random_split`` 0.9 as in ``main.get_train_objs``.

The checkout is copied to a temp dir (never modified, never copied into this repository); in the copy,
``CharDataset.__getitem__`` gets one line at its top for the ``raise`` and ``kill`` variants (``idx`` equal to an index rank 1's sampler deals in its 4th batch, on rank
1: raise a ``ValueError``, or ``os.kill(os.getpid(), SIGKILL)``); the ``external``
variant changes nothing and SIGKILLs one of rank 1's workers from outside (``kill -9``), as an OOM killer would.
Each variant runs twice: ``plain`` (the fetched DataLoader loop) and ``watched`` (``WorkerWatch`` around the same
dataset and loop). Printed per run: exit code, PyTorch's first line, and whether the worker id, the dataset
index and the rank appear in what the user sees.

Usage: ``python benchmarks/worker_realworld.py CHECKOUT_DIR [--json]`` where CHECKOUT_DIR holds
``distributed/minGPT-ddp/mingpt`` (e.g. ``git --git-dir=GITDIR archive HEAD distributed/minGPT-ddp | tar -x``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DRIVER = '''
import os, sys, signal, time
import torch, torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split
sys.path.insert(0, os.environ["MINGPT_DIR"])
from char_dataset import CharDataset, DataConfig
from model import GPT, GPTConfig

torch.set_num_threads(1)
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
dataset = CharDataset(DataConfig(path=os.path.join(os.environ["MINGPT_DIR"], "data", "input.txt"),
                                 block_size=32, train_split=0.9, truncate=0.05))
model = torch.nn.parallel.DistributedDataParallel(GPT(GPTConfig(n_layer=2, n_head=2, n_embd=64,
                                                   vocab_size=dataset.vocab_size, block_size=32)))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
watched = os.environ["VARIANT_MODE"] == "watched"
if watched:
    from faultlib.detect import WorkerWatch
    watch = WorkerWatch(dataset)
    dataset = watch.dataset
train_set, _ = random_split(dataset, [int(len(dataset) * 0.9), len(dataset) - int(len(dataset) * 0.9)],
                            generator=torch.Generator().manual_seed(0))
sampler = DistributedSampler(train_set)
if rank == 1:  # poison the 6th sample of rank 1's 4th batch (epoch 0): a dataset index it will load
    os.environ["POISON_INDEX"] = str(train_set.indices[list(sampler)[16 * 3 + 5]])
    print(f"rank1 poison-index={os.environ['POISON_INDEX']}", flush=True)
loader = DataLoader(train_set, batch_size=16, pin_memory=True, shuffle=False, num_workers=2, sampler=sampler)
print(f"rank{rank} workers-ready pid={os.getpid()}", flush=True)
for step, (x, y) in enumerate(watch.iterate(loader) if watched else loader):
    _, loss = model(x, y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step == 5 and rank == 1:
        print(f"rank1 step5 pid={os.getpid()}", flush=True)
        time.sleep(0.5)
    if step == 60:
        break
print(f"rank{rank} done", flush=True)
dist.destroy_process_group()
'''

PATCH = {
    "raise": "if str(idx) == os.environ.get('POISON_INDEX'): raise ValueError('corrupt chunk at byte offset %d' % idx)",
    "kill": "if str(idx) == os.environ.get('POISON_INDEX'): os.kill(os.getpid(), signal.SIGKILL)",
}


def prepare(checkout: Path, variant: str, tmp: Path) -> Path:
    src = checkout / "distributed" / "minGPT-ddp" / "mingpt"
    if not (src / "char_dataset.py").is_file():
        raise SystemExit(f"{src}/char_dataset.py not found: pass the pytorch/examples checkout directory")
    dst = tmp / "mingpt"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("slurm", "*.yaml"))
    if variant in PATCH:
        path = dst / "char_dataset.py"
        text = path.read_text()
        line = PATCH[variant]
        text = text.replace("    def __getitem__(self, idx):\n", f"    def __getitem__(self, idx):\n        {line}\n", 1)
        path.write_text("import os, signal\n" + text)
    return dst


def run(checkout: Path, variant: str, mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="worker-realworld-") as tmp:
        mingpt = prepare(checkout, variant, Path(tmp))
        driver = Path(tmp) / "driver.py"
        driver.write_text(DRIVER)
        env = {**os.environ, "MINGPT_DIR": str(mingpt), "VARIANT_MODE": mode, "PYTHONPATH": str(REPO),
               "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1"}
        argv = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes", "1", "--nproc-per-node",
                "2", "--max-restarts", "0", str(driver)]
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                cwd=tmp, start_new_session=True)
        out = []
        killed_pid, poison = None, None
        for line in proc.stdout:  # type: ignore[union-attr]
            out.append(line)
            if line.startswith("rank1 poison-index="):
                poison = line.split("=", 1)[1].strip()
            match = re.match(r"rank1 step5 pid=(\d+)", line)
            if variant == "external" and match:
                children = Path(f"/proc/{match.group(1)}/task/{match.group(1)}/children").read_text().split()
                workers = [int(c) for c in children]
                if workers:
                    killed_pid = workers[0]
                    os.kill(killed_pid, signal.SIGKILL)
        proc.wait(timeout=300)
        text = "".join(out)
    seen = [ln for ln in text.splitlines() if "rank1" in ln or "[rank1]" in ln]
    torch_line = next((ln.split("]: ", 1)[-1] for ln in text.splitlines()
                       if re.search(r"(Caught \w+ in DataLoader worker|DataLoader worker \(pid)", ln)), None)
    report = next((ln.split("]: ", 1)[-1] for ln in text.splitlines() if "WorkerFault:" in ln), None)
    shown = report or torch_line or ""
    return {"variant": variant, "mode": mode, "exit": proc.returncode, "seconds": round(time.monotonic() - t0, 1),
            "pytorch_said": torch_line, "faultlib_said": report,
            "names_worker": bool(re.search(r"worker (process )?\d+", shown)),
            "poison_index": poison, "names_index": bool(poison and f"index {poison}" in shown),
            "names_rank": bool(re.search(r"\brank 1\b", shown)), "names_cause": "OOM killer" in shown,
            "external_kill_pid": killed_pid, "rank1_lines": len(seen)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--variants", default="raise,kill,external")
    args = parser.parse_args()
    results = [run(args.checkout, v, m) for v in args.variants.split(",") for m in ("plain", "watched")]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        print(f"{r['variant']:<8} {r['mode']:<7} exit={r['exit']} worker={r['names_worker']} index={r['names_index']} "
              f"rank={r['names_rank']} cause={r['names_cause']} ({r['seconds']} s)")
        print(f"    PyTorch: {r['pytorch_said']}")
        if r["faultlib_said"]:
            print(f"    faultlib: {r['faultlib_said'][:300]}")


if __name__ == "__main__":
    main()
