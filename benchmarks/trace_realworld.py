"""Run ``faultlib trace`` on the injected faults of ``trace_corpus.json`` that carry ``edits``, in a local checkout.

Fetched code is never copied into the project: each row names its repository, commit, script and the lines it
changes as ``[line, find, replace]`` (a short fragment of that line and what replaces it); this script copies the
script out of ``--checkout`` into a temporary directory, applies the edits (refusing a line that does not hold the
fragment: another commit), runs ``faultlib trace --json -- python SCRIPT`` there and compares what trace named
with the row's ``expected`` fields (``kind``, ``step``, ``op``, ``line``, ``optimizer``: each one given must match;
``ok: true`` for a healthy run).

RL scripts import ``gym`` (0.26 API) and seed nothing: ``--gym-shim`` puts a generated ``gym`` module over gymnasium
(pip-installable, pure Python; ``--pythonpath`` names where it is installed) and a ``sitecustomize`` seeding torch,
random and numpy on the child's path, so a replay runs the same way (trace's replay needs a deterministic script).

Image trainers import torchvision (its PyPI wheel does not load with the CPU torch here) and tqdm: ``--vision-shim``
puts generated stand-ins on the child's path: ``datasets.MNIST`` of 256 generated 28x28 images in [0, 1] (seeded),
``transforms`` (``ToTensor``, ``Normalize``, ``Compose``), ``utils.save_image``/``make_grid`` that write nothing, and a
``tqdm`` that only iterates. A row may also name ``args`` (after the script), ``file_edits`` (``{file: edits}`` for the
script's sibling modules, all ``*.py`` beside it are copied) and ``data: "words"`` (a generated word corpus in
``data/wikitext-2/{train,valid,test}.txt``: language-model examples read that folder).

Rows whose repository is ``own`` are our own reproductions of public bug reports (``source`` is the report's URL):
``--reports`` runs them from ``benchmarks/trace_reports/``.

Usage: ``python benchmarks/trace_realworld.py --checkout seungeunrho/minimalRL=DIR --gym-shim --pythonpath SITE``
``[--checkout pytorch/examples=DIR --vision-shim] [--reports] [--only NAME] [--json]``. Prints one row per case
and precision/recall of "trace found the injected fault"
(a healthy run that trips is a false alarm). Exits 0 (a measurement, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CORPUS = Path(__file__).with_name("trace_corpus.json")
GYM_SHIM = '''"""gym 0.26's API over gymnasium; the first reset of each environment is seeded (FAULTLIB_CORPUS_SEED)."""
import os
import gymnasium
from gymnasium import *  # noqa: F401,F403


def make(*args, **kwargs):
    env, seeded = gymnasium.make(*args, **kwargs), []
    reset = env.reset

    def first_reset_seeded(*a, **k):
        if not seeded:
            seeded.append(True)
            k.setdefault("seed", int(os.environ.get("FAULTLIB_CORPUS_SEED", "0")))
        return reset(*a, **k)

    env.reset = first_reset_seeded
    return env
'''
SEEDING = '''"""Seed torch, random and numpy before an unseeded script runs."""
import os, random
import numpy as np
import torch
_SEED = int(os.environ.get("FAULTLIB_CORPUS_SEED", "0"))
random.seed(_SEED); np.random.seed(_SEED); torch.manual_seed(_SEED)
'''
VISION_SHIM = {
    "torchvision/__init__.py": "from . import datasets, transforms, utils  # noqa: F401\n",
    "torchvision/datasets.py": '''"""MNIST stand-in: generated 28x28 images in [0, 1] (seeded); never downloads."""
import torch


class MNIST(torch.utils.data.Dataset):
    def __init__(self, root, train=True, download=False, transform=None):
        g = torch.Generator().manual_seed(0 if train else 1)
        self.data = torch.rand(256 if train else 64, 28, 28, generator=g)
        self.targets = torch.randint(0, 10, (len(self.data),), generator=g)
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        return (self.transform(x) if self.transform else x), int(self.targets[i])
''',
    "torchvision/transforms.py": '''"""ToTensor, Normalize and Compose over the generated images."""


class ToTensor:
    def __call__(self, x):
        return x.unsqueeze(0) if x.dim() == 2 else x


class Normalize:
    def __init__(self, mean, std):
        self.mean = mean[0] if isinstance(mean, (tuple, list)) else mean
        self.std = std[0] if isinstance(std, (tuple, list)) else std

    def __call__(self, x):
        return (x - self.mean) / self.std


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x
''',
    "torchvision/utils.py": "def save_image(*a, **k):\n    pass\n\n\ndef make_grid(x, *a, **k):\n    return x\n",
    "tqdm.py": '''class tqdm:
    def __init__(self, it=None, *a, **k):
        self.it = it

    def __iter__(self):
        return iter(self.it)

    def set_description(self, *a, **k):
        pass
''',
}
WORDS = "the of and to in a is was for on as with by he at from his an were are which".split()
FIELDS = ("kind", "step", "phase", "module", "op", "file", "line")


def apply_edits(source: str, edits: list, where: str) -> str:
    """``source`` with each ``[line, find, replace]`` applied on its (1-based) line; ValueError if absent."""
    lines = source.split("\n")
    for line, find, replace in edits:
        if not 1 <= line <= len(lines) or find not in lines[line - 1]:
            raise ValueError(f"{where}:{line} does not hold {find!r}: is the checkout at the row's commit?")
        lines[line - 1] = lines[line - 1].replace(find, replace, 1)
    return "\n".join(lines)


def said(report: dict) -> dict | None:
    """The fields of ``first_nonfinite`` a row is judged on (file as a base name), plus the optimizer named."""
    first = report.get("first_nonfinite")
    if not first:
        return None
    out = {k: first.get(k) for k in FIELDS}
    out["file"] = os.path.basename(out["file"]) if out["file"] else None
    out["optimizer"] = (first.get("optimizer") or {}).get("optimizer")
    return out


def judge(expected: dict, report: dict) -> bool:
    got = said(report)
    if expected.get("ok"):
        return bool(report.get("ok")) and got is None
    if expected.get("script_error"):  # no tensor is non-finite, the script dies of its own error: no finding
        return got is None and expected["script_error"] in str(report.get("error"))
    return got is not None and all(got.get(k) == v for k, v in expected.items())


def write_words(folder: Path) -> None:
    """A generated word corpus (seeded) in ``folder/{train,valid,test}.txt``."""
    import random

    rng = random.Random(0)
    folder.mkdir(parents=True)
    for name, lines in (("train", 60), ("valid", 12), ("test", 12)):
        text = "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(lines))
        (folder / f"{name}.txt").write_text(text + "\n")


def run_row(row: dict, checkout: Path, env: dict, timeout_s: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="trace-realworld-") as tmp:
        script = Path(row["script"]).name
        here = (checkout / row["script"]).parent
        edits = {script: row.get("edits", []), **row.get("file_edits", {})}
        for source in sorted(here.glob("*.py")):
            text = source.read_text()
            if source.name in edits:
                text = apply_edits(text, edits[source.name], str(source.relative_to(checkout)))
            (Path(tmp) / source.name).write_text(text)
        if row.get("data") == "words":
            write_words(Path(tmp) / "data" / "wikitext-2")
        proc = subprocess.run([sys.executable, "-m", "faultlib", "trace", "--json", "--dump-dir", str(Path(tmp) / "dump"),
                               "--", "python", script, *row.get("args", [])], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout_s)
    try:
        report = json.loads(proc.stdout[proc.stdout.index("{"):])
    except ValueError:
        return {"name": row["name"], "exit": proc.returncode, "said": None, "right": False,
                "error": (proc.stderr or proc.stdout)[-300:]}
    return {"name": row["name"], "exit": proc.returncode, "said": said(report), "notes": report.get("notes"),
            "right": judge(row["expected"], report)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", default=[], metavar="OWNER/NAME=DIR",
                        help="a local checkout of a repository the rows name (repeatable)")
    parser.add_argument("--gym-shim", action="store_true", help="generated gym-over-gymnasium module and seeding")
    parser.add_argument("--vision-shim", action="store_true", help="generated torchvision (MNIST) and tqdm stand-ins")
    parser.add_argument("--reports", action="store_true",
                        help="our reproductions of public bug reports (repository own)")
    parser.add_argument("--pythonpath", default="", help="prepended to the child's PYTHONPATH (e.g. gymnasium's)")
    parser.add_argument("--only", action="append", help="only the rows of these names (repeatable)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per trace (default 600)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args()
    checkouts = dict(item.split("=", 1) for item in args.checkout)
    if args.reports:
        checkouts["own"] = str(Path(__file__).resolve().parent.parent)
    rows = [r for r in json.loads(CORPUS.read_text())["rows"]
            if (r.get("edits") or r.get("args") or r["repository"] == "own") and r["repository"] in checkouts
            and (not args.only or r["name"] in args.only)]
    with tempfile.TemporaryDirectory(prefix="trace-realworld-path-") as shim:
        path = [args.pythonpath] if args.pythonpath else []
        if args.gym_shim:
            Path(shim, "gym.py").write_text(GYM_SHIM)
            Path(shim, "sitecustomize.py").write_text(SEEDING)
            path.insert(0, shim)
        if args.vision_shim:
            for name, text in VISION_SHIM.items():
                Path(shim, name).parent.mkdir(exist_ok=True)
                Path(shim, name).write_text(text)
            if shim not in path:
                path.insert(0, shim)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        results = []
        for row in rows:
            results.append(run_row(row, Path(checkouts[row["repository"]]), env, args.timeout))
            if not args.json:
                r = results[-1]
                s = r["said"] or {}
                what = "ok" if not s else f"{s['kind']} step {s['step']} {s['module'] or '-'} {s['op']} :{s['line']}"
                print(f"{r['name']:<16} exit {r['exit']}  {what:<46} {'right' if r['right'] else 'WRONG'}", flush=True)
    quiet = ("ok", "script_error")  # rows where no finding is right
    faults = [(row, r) for row, r in zip(rows, results) if not any(row["expected"].get(k) for k in quiet)]
    healthy = [(row, r) for row, r in zip(rows, results) if any(row["expected"].get(k) for k in quiet)]
    found = sum(r["right"] for _, r in faults)
    alarms = sum(r["said"] is not None for _, r in healthy)
    flagged = sum(r["said"] is not None for _, r in faults) + alarms
    summary = {"faults": len(faults), "named_right": found, "healthy": len(healthy), "false_alarms": alarms,
               "precision": round(found / flagged, 3) if flagged else None,
               "recall": round(found / len(faults), 3) if faults else None}
    if args.json:
        print(json.dumps({"results": results, "summary": summary}))
    else:
        print(f"{found}/{len(faults)} injected faults named right, {alarms} false alarm(s) on {len(healthy)} healthy "
              f"run(s); precision {summary['precision']}, recall {summary['recall']}")


if __name__ == "__main__":
    main()
