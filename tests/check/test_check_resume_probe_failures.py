"""`faultlib check resume --probe` on a script that fails on its own: the probe_failed finding says which run
exited, with what code and the last line it wrote on stderr (the runs' folders, stderr included, are removed
by the probe, so the finding is the only place the user can read why); a run that did not fail carries none."""

from __future__ import annotations

import os
import textwrap

from faultlib.detect.training.probe import probe_resume


def _probe(folder, text: str, **kwargs):
    (folder / "fit.py").write_text(textwrap.dedent(text))
    here = os.getcwd()
    os.chdir(folder)
    try:
        return probe_resume(["python", "fit.py"], **kwargs)
    finally:
        os.chdir(here)


def test_a_script_that_dies_before_its_first_step_is_named_with_its_code_and_stderr(tmp_path):
    report = _probe(tmp_path, 'raise SystemExit("fit.py: no config at conf/fit.toml")\n', steps=4, stop_at=2,
                    timeout_s=120)
    [finding] = report.findings
    assert finding.kind == "probe_failed", f"{finding}"
    assert "the preempted run exited with code 1: fit.py: no config at conf/fit.toml" in finding.message, \
        f"{finding.message}"
    assert report.runs["straight"]["error"] == "fit.py: no config at conf/fit.toml", f"{report.runs}"


def test_a_resume_argument_the_script_refuses_is_named_not_a_missing_optimizer(tmp_path):
    report = _probe(tmp_path, """
        import argparse, os
        import torch

        argparse.ArgumentParser().parse_args()    # takes no --resume
        torch.manual_seed(3)
        layer = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(layer.parameters(), lr=0.05)
        os.makedirs("out", exist_ok=True)
        for step in range(6):
            loss = layer(torch.ones(4, 2)).square().mean()
            opt.zero_grad(); loss.backward(); opt.step()
            torch.save({"w": layer.state_dict()}, f"out/w{step}.pt")
        """, steps=6, stop_at=3, timeout_s=120)
    [finding] = report.findings
    assert finding.kind == "probe_failed", f"{finding}"
    assert "the resumed run exited with code 2" in finding.message, f"{finding.message}"
    assert "unrecognized arguments: --resume" in finding.message, f"{finding.message}"
    assert "torch.optim" not in finding.message, f"{finding.message}"
    assert report.runs["straight"]["error"] is None and report.runs["preempted"]["error"] is None, \
        f"{report.runs}"
