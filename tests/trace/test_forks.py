"""`faultlib trace` on forked children (``os.fork``, multiprocessing's ``fork`` start method, DataLoader workers):
each fork is traced as a child of its own (its report, its identity, its replay), the tool's control flow never
reaches the child's code and its exit code stays its own."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

# a trainer started with the fork start method: at step 3 a log of a negative number (NaN), line 13
FORK_TRAINER = '''
import multiprocessing as mp
import torch

def train():
    torch.manual_seed(1)
    net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    for step in range(6):
        x = torch.full((4, 2), 1.5)
        out = net(x).pow(2).mean()
        if step == 3:
            below = out - 1e3
            out = torch.log(below)
        net.zero_grad()
        out.backward()
        with torch.no_grad():
            for p in net.parameters():
                p -= 0.01 * p.grad
    print("trainer done", flush=True)

if __name__ == "__main__":
    worker = mp.get_context("fork").Process(target=train)
    worker.start()
    worker.join()
    print("worker exit code", worker.exitcode, flush=True)
'''


def test_a_nan_in_a_fork_started_trainer_is_named_with_its_process_and_line(tmp_path):
    (tmp_path / "fork_trainer.py").write_text(FORK_TRAINER)
    proc = cli("trace", "--json", "--quiet-replay", "--", "python", "fork_trainer.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert report["reason"] == "nonfinite" and report["replayed"] is True, report
    assert (first["step"], first["op"], first["line"]) == (3, "aten::log", 13), f"{first}"
    assert first["file"].endswith("fork_trainer.py"), f"{first}"
    [worker] = report["children"]
    assert worker["traced"] and worker["pid"] == first["process"]["pid"], f'{report["children"]}'
    assert worker["argv"][0] == "multiprocessing fork: ForkProcess-1 (train)", worker
    assert "worker exit code 0" in proc.stderr and "trainer done" in proc.stderr, proc.stderr
    assert not any("untraced" in note for note in report["notes"]), \
        f'{report["notes"]}'


FORKED_WORLD = '''
import os, sys
import torch

def work(seed):
    torch.manual_seed(seed)
    net = torch.nn.Linear(3, 1)
    for _ in range(4):
        net(torch.randn(5, 3)).pow(2).mean().backward()

children = []
for seed in range(2):
    pid = os.fork()
    if pid == 0:
        work(seed)
        sys.exit(3 + seed)                 # each child's own exit code
    children.append(pid)
codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]
print("children exit codes", codes, flush=True)
work(7)
'''


def test_a_healthy_forked_world_is_ok_with_every_process_counted(tmp_path):
    (tmp_path / "forked_world.py").write_text(FORKED_WORLD)
    proc = cli("trace", "--json", "--", "python", "forked_world.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["watched"] == {"forwards": 12, "optimizer_steps": 0, "processes": 3}, report
    assert "children exit codes [3, 4]" in proc.stderr, proc.stderr
    assert [row["traced"] for row in report["children"]] == [True, True], f'{report["children"]}'
    assert all(row["watched"]["forwards"] == 4 and row["end"] == "exit" for row in report["children"])
    assert not any("untraced" in note or "not traced" in note for note in report["notes"]), \
        f'{report["notes"]}'


LOADER = '''
import torch
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        x = torch.tensor([float(i % 7), 1.0])
        return x, x.pow(2).sum(0, keepdim=True)

if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(Squares(), batch_size=8, num_workers=2, multiprocessing_context="fork")
    net = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    for epoch in range(2):
        for x, y in loader:
            loss = (net(x) - y).pow(2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
    print("trained", flush=True)
'''


def test_a_dataloader_with_two_forked_workers_is_ok_with_the_workers_traced(tmp_path):
    (tmp_path / "loader.py").write_text(LOADER)
    proc = cli("trace", "--json", "--", "python", "loader.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and "trained" in proc.stderr, report
    workers = report["children"]
    assert len(workers) == 4 and all(row["traced"] for row in workers), workers  # 2 workers x 2 epochs
    assert all(row["argv"][0].startswith("multiprocessing fork: ") and "_worker_loop" in row["argv"][0]
               for row in workers), workers
    assert report["watched"]["processes"] == 5 and report["watched"]["optimizer_steps"] == 8, f'{report["watched"]}'
    assert not any("untraced" in note or "not traced" in note for note in report["notes"]), \
        f'{report["notes"]}'


PREEXEC = '''
import os, subprocess, sys
import torch
subprocess.run(["sh", "-c", "echo shell ran"], preexec_fn=os.setsid, check=True)
subprocess.run([sys.executable, "-c", "import torch; torch.nn.Linear(2, 1)(torch.ones(1, 2)); print('python ran')"],
               preexec_fn=lambda: None, check=True)
torch.nn.Linear(2, 1)(torch.ones(1, 2))
'''


def test_the_fork_subprocess_makes_for_a_preexec_fn_is_not_taken_for_a_child(tmp_path):
    (tmp_path / "preexec.py").write_text(PREEXEC)
    proc = cli("trace", "--json", "--", "python", "preexec.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    shell, python = report["children"]  # the programs exec'd, each once: the fork before exec is no child of its own
    assert shell["argv"][0] == "sh" and not shell["traced"] and "not a Python interpreter" in shell["why_not"], shell
    assert python["traced"] and python["watched"]["forwards"] == 1, python
    assert "shell ran" in proc.stderr and "python ran" in proc.stderr
