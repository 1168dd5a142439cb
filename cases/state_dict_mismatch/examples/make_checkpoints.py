"""Write the example checkpoints of the README's ``faultlib check state-dict`` / ``check checkpoints`` commands.

Usage (from the repository root)::

    python cases/state_dict_mismatch/examples/make_checkpoints.py /tmp/ckpts
    faultlib check state-dict /tmp/ckpts/wrapped.pt --model cases/state_dict_mismatch/model.py:build
    faultlib check state-dict /tmp/ckpts/reordered.pt --model cases/state_dict_mismatch/model.py:build_reordered
    faultlib check checkpoints /tmp/ckpts/run /tmp/ckpts/bad

It trains the digits models of ``model.py`` for 30 Adam steps on scikit-learn's digits (about a
second) and writes into OUT_DIR:

- ``plain.pt``: ``{"model", "optimizer", "step"}`` of the bare model (fits ``model.py:build``);
- ``wrapped.pt``: the same, saved from ``torch.compile(nn.DataParallel(model))`` (keys ``_orig_mod.module.*``);
- ``reordered.pt``: a model whose hidden layers were declared ``first``, ``second``, with its Adam state;
  ``model.py:build_reordered`` declares them the other way round (same shapes);
- ``run/ckpt-000100.pt``, ``run/ckpt-000200.pt``: complete; ``run/ckpt-000300.pt``: cut off mid-write;
- ``bad/``: an empty file, a Git LFS pointer, a checkpoint holding an ``argparse.Namespace``, and a
  whole pickled model (``torch.save(model)``): files ``weights_only=True`` refuses or that are not checkpoints.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from model import OrderedDigitsNet, build  # noqa: E402


def train(model: nn.Module, steps: int = 30) -> torch.optim.Optimizer:
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x, y = torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    batches = torch.Generator().manual_seed(0)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (64,), generator=batches)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        optimizer.step()
    return optimizer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to write into (created)")
    out = parser.parse_args().out
    (out / "run").mkdir(parents=True, exist_ok=True)
    (out / "bad").mkdir(exist_ok=True)
    torch.manual_seed(0)

    model = build()
    optimizer = train(model)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": 30}, out / "plain.pt")
    wrapped = torch.compile(nn.DataParallel(model), backend="eager")  # real wrappers; nothing is compiled
    torch.save({"model": wrapped.state_dict(), "optimizer": optimizer.state_dict(), "step": 30}, out / "wrapped.pt")

    ordered = OrderedDigitsNet()
    torch.save({"model": ordered.state_dict(), "optimizer": train(ordered).state_dict(), "step": 30},
               out / "reordered.pt")

    for step in (100, 200, 300):
        torch.save({"model": model.state_dict(), "step": step}, out / "run" / f"ckpt-{step:06d}.pt")
    last = out / "run" / "ckpt-000300.pt"
    last.write_bytes(last.read_bytes()[: last.stat().st_size // 2])

    (out / "bad" / "empty.pt").write_bytes(b"")
    (out / "bad" / "lfs.pt").write_text("version https://git-lfs.github.com/spec/v1\n"
                                        "oid sha256:4d7a2146b1fc4c7b7a0c2b5d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f\n"
                                        "size 184320\n")
    torch.save({"model": model.state_dict(), "args": argparse.Namespace(lr=0.01)}, out / "bad" / "namespace.pt")
    torch.save(model, out / "bad" / "whole_model.pt")
    print(f"wrote {sorted(str(p.relative_to(out)) for p in out.rglob('*') if p.is_file())} to {out}")


if __name__ == "__main__":
    main()
