"""`faultlib trace` audits a GradScaler made before a fork where the fork uses it: the fork's own tracer takes the
scaler over from the audit it inherited (the use went unaudited: the parent's audit lived on in the fork's copy)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

SCALER_THEN_FORK = '''
import os, sys
import torch
from torch import nn

torch.manual_seed(2)
scaler = torch.amp.GradScaler("cpu", init_scale=512.0)
pid = os.fork()
if pid == 0:
    net = nn.Sequential(nn.Linear(5, 10), nn.ReLU(), nn.Linear(10, 1))
    sgd = torch.optim.SGD(net.parameters(), lr=0.01)
    data, target = torch.randn(12, 5), torch.randn(12, 1)
    for _ in range(3):
        sgd.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(net(data).float(), target)
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 2.0)  # still scaled: no unscale_ before it
        scaler.step(sgd)
        scaler.update()
    sys.exit(0)
_, status = os.waitpid(pid, 0)
print("fork exit", os.waitstatus_to_exitcode(status), flush=True)
'''


def test_a_gradscaler_made_before_a_fork_is_audited_in_the_fork(tmp_path):
    (tmp_path / "scaler_fork.py").write_text(SCALER_THEN_FORK)
    proc = cli("trace", "--json", "--", "python", "scaler_fork.py", cwd=tmp_path)
    assert proc.returncode == 0 and "fork exit 0" in proc.stderr, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["first_nonfinite"] is None
    [finding] = report["findings"]
    assert (finding["kind"], finding["evidence"]["count"], finding["evidence"]["loss_scale"]) == (
        "clip_scaled_gradients", 3, 512.0), finding
    line = next(i for i, text in enumerate(SCALER_THEN_FORK.splitlines(), 1) if "clip_grad_norm_(" in text)
    assert Path(finding["location"]["file"]).name == "scaler_fork.py" and finding["location"]["line"] == line
    [fork] = report["children"]
    assert fork["traced"] and fork["argv"][0].startswith("os.fork() of pid"), fork


BOUND_BEFORE_THE_FORK = '''
import os, sys
import torch
from torch import nn

torch.manual_seed(3)
scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
scale, step, update = scaler.scale, scaler.step, scaler.update
pid = os.fork()
if pid == 0:
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    adam = torch.optim.Adam(net.parameters(), lr=1e-3)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    for i in range(4):
        adam.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = nn.functional.mse_loss(net(x).float(), y)
        if i < 3:
            scale(loss).backward()
        else:
            loss.backward()
        step(adam)
        update()
    sys.exit(0)
_, status = os.waitpid(pid, 0)
print("fork exit", os.waitstatus_to_exitcode(status), flush=True)
'''


def test_scaler_methods_bound_before_a_fork_are_audited_in_the_fork(tmp_path):
    (tmp_path / "bound_fork.py").write_text(BOUND_BEFORE_THE_FORK)
    proc = cli("trace", "--json", "--", "python", "bound_fork.py", cwd=tmp_path)
    assert proc.returncode == 0 and "fork exit 0" in proc.stderr, proc.stderr  # the tool never breaks the fork
    report = json.loads(proc.stdout)
    [finding] = report["findings"]
    assert (finding["kind"], finding["location"]["step"], finding["evidence"]["count"]) == (
        "step_without_scaled_backward", 3, 1), finding
    line = next(i for i, text in enumerate(BOUND_BEFORE_THE_FORK.splitlines(), 1) if "step(adam)" in text)
    assert finding["location"]["line"] == line, finding
    [fork] = report["children"]
    assert fork["exit_code"] == 0 and fork["watched"]["optimizer_steps"] == 4, fork
