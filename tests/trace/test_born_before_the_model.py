"""`faultlib trace` names the op that made a value the script computed itself, outside any model: a noise
schedule's sqrt of a negative before the first model call, a hand-written parameter update without torch.optim."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

SCHEDULE = """\
import torch
torch.manual_seed(0)
betas = torch.linspace(1e-4, 1.4, 10)  # a schedule past 1: alphas < 0
alpha_bar = torch.cumprod(1 - betas, 0)
root_ab = torch.sqrt(alpha_bar)
net = torch.nn.Linear(4, 4)
for step in range(3):
    x0, t = torch.randn(8, 4), torch.randint(0, 10, (8,))
    xt = root_ab[t].unsqueeze(1) * x0
    loss = net(xt).pow(2).mean()
    net.zero_grad()
    loss.backward()
    with torch.no_grad():  # SGD by hand: torch.optim's first use imports torch._dynamo (~1.5 s of CPU)
        for p in net.parameters():
            p -= 0.01 * p.grad
"""

MANUAL_UPDATE = """\
import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1))
x, y = torch.randn(16, 4), torch.randn(16, 1)
for step in range(4):
    loss = (net(x) - y).pow(2).mean()
    net.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in net.parameters():
            p -= 1e39 * p.grad
"""


def _first(tmp_path, text: str) -> dict:
    script = tmp_path / "script.py"
    script.write_text(text)
    proc = cli("trace", "--json", "--dump-dir", str(tmp_path / "d"), "--", "python", str(script), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["replayed"] is True, report
    return report["first_nonfinite"]


def test_a_nan_the_script_made_before_its_first_model_call_is_named_by_its_op(tmp_path):
    first = _first(tmp_path, SCHEDULE)
    assert (first["step"], first["source"], first["op"], first["line"]) == (0, "op", "aten::sqrt", 5), first


def test_a_hand_written_update_that_writes_inf_is_named_at_its_step_and_line(tmp_path):
    first = _first(tmp_path, MANUAL_UPDATE)
    assert (first["step"], first["source"], first["op"], first["line"]) == (0, "op", "aten::mul", 11), first
