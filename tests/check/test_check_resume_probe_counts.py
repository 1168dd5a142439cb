"""`check resume --probe` counts exactly the steps it asked for: a script that trains far longer than ``--steps``
is held at the step the probe needs (the straight run at ``--steps``, the resumed run at the straight run's end),
so ``runs.*.steps`` never reads more than was asked (it read 13 for ``--steps 12`` on a loaded machine: the
probe polls every 50 ms and a small model makes many steps between two polls)."""

from __future__ import annotations

import os
import textwrap

from faultlib.detect.training.probe import probe_resume

LONG = textwrap.dedent("""
    import argparse, os
    import torch

    p = argparse.ArgumentParser()
    p.add_argument("--resume")
    a = p.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = 0
    if a.resume:
        ckpt = torch.load(a.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["opt"])
        start = ckpt["step"]
    os.makedirs("ckpt", exist_ok=True)
    data = torch.Generator().manual_seed(3)
    for _ in range(start):
        torch.randn(8, 4, generator=data)
    for step in range(start, 100000):
        opt.zero_grad()
        model(torch.randn(8, 4, generator=data)).pow(2).mean().backward()
        opt.step()
        if (step + 1) % 4 == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step + 1},
                       f"ckpt/step{step + 1}.pt")
""")


def test_runs_stop_at_the_steps_asked_for(tmp_path):
    (tmp_path / "long.py").write_text(LONG)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = probe_resume(["python", "long.py"], steps=12, stop_at=4, timeout_s=300)
    finally:
        os.chdir(here)
    assert report.findings == [], f"{[f.message for f in report.findings]}"
    assert report.runs["straight"]["steps"] == 12
    assert report.resumed_at == 4 and report.compared == 8
    assert report.runs["resumed"]["steps"] == 8  # from step 4 to the straight run's end, not beyond
