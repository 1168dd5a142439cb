"""`faultlib trace` gives the exit code of every child however it ended: one reaped by `Popen.poll()` (which calls
the `os.waitpid` bound at import), one its parent never reaped (the parent left through `os._exit` first: the
session, the orphans' subreaper, reaps it), and says so of one still running when the script ended."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

LEAVES_THEM = '''
import os, subprocess, sys, time
import torch

TRAINER = """
import sys, torch
layer = torch.nn.Linear(3, 1)
sgd = torch.optim.SGD(layer.parameters(), lr=0.1)
for _ in range(2):
    sgd.zero_grad(); layer(torch.ones(4, 3)).sum().backward(); sgd.step()
sys.exit(7)
"""
polled = subprocess.Popen([sys.executable, "-c", TRAINER])
while polled.poll() is None:
    time.sleep(0.02)
print("polled", polled.returncode, flush=True)
forgotten = subprocess.Popen([sys.executable, "-c", "import os; os._exit(4)"])
# not on the script's stdout/stderr: a child holding the test's pipe open would keep the test waiting for its end
slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
def state(pid):
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0]
while state(forgotten.pid) != "Z":  # ended and never reaped: the zombie its parent leaves behind
    time.sleep(0.02)
print("slow", slow.pid, flush=True)
os._exit(0)
'''


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    folder = tmp_path_factory.mktemp("unreaped")
    (folder / "leaves_them.py").write_text(LEAVES_THEM)
    proc = cli("trace", "--json", "--", "python", "leaves_them.py", cwd=folder)
    assert proc.returncode == 0 and "polled 7" in proc.stderr, proc.stderr
    slow = int(proc.stderr.split("slow ", 1)[1].split()[0])
    try:
        import os
        import signal

        os.kill(slow, signal.SIGKILL)  # it outlived the script and the session: ours to end
    except (ProcessLookupError, PermissionError):
        pass
    return {row["argv"][-1].strip().splitlines()[-1]: row for row in json.loads(proc.stdout)["children"]}


def test_a_child_reaped_by_popen_poll_has_its_exit_code(rows):
    polled = rows["sys.exit(7)"]
    assert polled["traced"] and polled["end"] == "exit" and polled["watched"]["optimizer_steps"] == 2, polled
    assert polled["exit_code"] == 7, polled


def test_a_child_its_parent_never_reaped_has_its_exit_code(rows):
    forgotten = rows["import os; os._exit(4)"]
    assert forgotten["exit_code"] == 4 and forgotten["why_not"] is None, forgotten


def test_a_child_still_running_when_the_script_ended_is_said_to_be(rows):
    slow = rows["import time; time.sleep(30)"]
    assert slow["exit_code"] is None and slow["end"] is None, slow
    assert "still running when the traced script ended" in slow["why_not"], slow
