"""`faultlib trace` says how a child ended when the child could not: a `subprocess` child that leaves through
`os._exit` writes its report first (it was "ended before its report"), and a fork killed by a signal is named with
the signal its parent reaped and the steps it last reported."""

from __future__ import annotations

import json

import pytest

from faultlib.trace import exits
from tests.conftest import cli

pytest.importorskip("torch")

TWO_CHILDREN = '''
import os, signal, subprocess, sys
import torch

WORKER = """
import os, torch
layer = torch.nn.Linear(4, 2)
sgd = torch.optim.SGD(layer.parameters(), lr=0.05)
for _ in range(3):
    sgd.zero_grad(); layer(torch.ones(5, 4)).pow(2).mean().backward(); sgd.step()
os._exit(5)
"""
ran = subprocess.run([sys.executable, "-c", WORKER])
print("worker exit", ran.returncode, flush=True)
pid = os.fork()
if pid == 0:
    head = torch.nn.Linear(4, 1)
    sgd = torch.optim.SGD(head.parameters(), lr=0.05)
    for _ in range(2):
        sgd.zero_grad(); head(torch.ones(3, 4)).sum().backward(); sgd.step()
    os.kill(os.getpid(), signal.SIGKILL)
_, status = os.waitpid(pid, 0)
print("fork status", os.waitstatus_to_exitcode(status), flush=True)
'''


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exits")
    (folder / "two_children.py").write_text(TWO_CHILDREN)
    proc = cli("trace", "--json", "--", "python", "two_children.py", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "worker exit 5" in proc.stderr and "fork status -9" in proc.stderr  # their exits are their own
    report = json.loads(proc.stdout)
    worker, fork = report["children"]
    return report, worker, fork


def test_a_subprocess_child_leaving_through_os_exit_writes_its_report(traced):
    _, worker, _ = traced
    assert worker["traced"] and worker["why_not"] is None, worker
    assert worker["watched"] == {"forwards": 3, "optimizer_steps": 3} and worker["end"] == "exit", worker
    assert worker["exit_code"] == 5, worker


def test_a_fork_killed_by_a_signal_names_the_signal_and_its_last_steps(traced):
    report, _, fork = traced
    assert fork["argv"][0].startswith("os.fork() of pid") and fork["exit_code"] == -9, fork
    assert "killed by SIGKILL" in fork["why_not"] and "1 optimizer step(s)" in fork["why_not"], fork
    assert fork["end"] is None and fork["watched"] is None, "how it ended is not its own word"
    assert any("killed by SIGKILL" in note for note in report["notes"]), report["notes"]


def test_describe_a_status():
    assert exits.describe(-15) == "killed by SIGTERM" and exits.describe(3) == "exit code 3"
    assert exits.why_ended({}, None) == "it ended before its report was written (killed, or os._exit)"
