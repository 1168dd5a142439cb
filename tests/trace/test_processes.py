"""`faultlib trace` never changes what the script does: a forked child is traced as a child of its own, never
stopped (its exit code and control flow are its own), and a replay that never reaches the step is stopped and said."""

from __future__ import annotations

import json

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

FORKING = '''
import os, sys
import torch

pid = os.fork()
if pid == 0:
    try:
        w = torch.zeros(3, requires_grad=True)
        (torch.sqrt(w) * 0).sum().backward()      # NaN gradient: the tracer must not stop this child
        opt = torch.optim.SGD([w], lr=0.1)
        opt.step()
    except BaseException as exc:                  # user code that swallows everything
        print("child caught", type(exc).__name__, flush=True)
    sys.exit(7)
_, status = os.waitpid(pid, 0)
print("child exit", os.waitstatus_to_exitcode(status), flush=True)
model = torch.nn.Linear(2, 1)
loss = model(torch.ones(4, 2)).pow(2).mean()
loss.backward()
'''

ONCE_THEN_FOREVER = '''
import os, sys, time
import torch

marker = sys.argv[1]
first = not os.path.exists(marker)
open(marker, "a").close()
model = torch.nn.Linear(2, 1)
step = 0
while True:
    x = torch.ones(4, 2) * (float("nan") if first and step == 2 else 1.0)
    loss = model(x).pow(2).mean()
    model.zero_grad(); loss.backward()
    with torch.no_grad():                         # no torch.optim: its first step imports torch._dynamo,
        for p in model.parameters():              # 1-3 s that the replay's bound (3 x the first run) triples
            p -= 0.1 * p.grad
    step += 1
    if not first:
        time.sleep(0.05)                          # the replay never meets the NaN and never ends
'''


def test_a_forked_child_is_traced_and_keeps_its_exit_code_and_control_flow(tmp_path):
    (tmp_path / "forking.py").write_text(FORKING)
    proc = cli("trace", "--json", "--quiet-replay", "--", "python", "forking.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert "child exit 7" in proc.stderr and "child caught" not in proc.stderr  # no tool exception in its except
    [child] = report["children"]
    assert child["traced"] and child["end"] == "exit" and child["first_nonfinite"]["phase"] == "backward", child
    assert report["first_nonfinite"]["process"]["pid"] == child["pid"], report["first_nonfinite"]
    assert report["watched"]["processes"] == 2 and not any("untraced" in note for note in report["notes"])


def test_a_replay_that_never_reaches_the_step_is_stopped_and_said(tmp_path, monkeypatch):
    (tmp_path / "forever.py").write_text(ONCE_THEN_FOREVER)
    monkeypatch.setenv("FAULTLIB_TRACE_REPLAY_MARGIN_S", "1")  # the replay never meets the NaN: any bound ends it
    proc = cli("trace", "--json", "--", "python", "forever.py", str(tmp_path / "marker"), cwd=tmp_path, timeout=240)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["first_nonfinite"]["step"] == 2 and report["replayed"] is False
    assert any("replay's bound" in note for note in report["notes"]), \
        f'{report["notes"]}'


SPAWNING = '''
import multiprocessing as mp
import torch

def work(q):
    q.put(41 + 1)

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=work, args=(q,))
    p.start(); print("worker said", q.get(), flush=True); p.join()
    model = torch.nn.Linear(2, 1)
    model(torch.ones(1, 2)).sum().backward()
'''


def test_a_spawned_worker_is_traced_as_a_child(tmp_path):
    (tmp_path / "spawning.py").write_text(SPAWNING)
    proc = cli("trace", "--json", "--", "python", "spawning.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert "worker said 42" in proc.stderr
    [worker] = report["children"]  # armed through the environment (faultlib.trace.children), not "untraced"
    assert worker["traced"] and worker["argv"] == ["multiprocessing spawn: SpawnProcess-1 (work)"], worker
    assert not any("untraced" in note for note in report["notes"]), \
        f'{report["notes"]}'


INTERRUPTED_CHILD = '''
import os, sys
pid = os.fork()
if pid == 0:
    raise KeyboardInterrupt
_, status = os.waitpid(pid, 0)
print("child status", os.waitstatus_to_exitcode(status), flush=True)
print("stdin", repr(sys.stdin.read()), flush=True)
'''


def test_a_child_killed_by_keyboardinterrupt_dies_of_sigint_and_stdin_reaches_the_script(tmp_path):
    import subprocess
    import sys

    (tmp_path / "child.py").write_text(INTERRUPTED_CHILD)
    plain = subprocess.run([sys.executable, "child.py"], cwd=tmp_path, input="hi\n", capture_output=True, text=True)
    traced = subprocess.run([sys.executable, "-m", "faultlib", "trace", "--", "python", "child.py"], cwd=tmp_path,
                            input="hi\n", capture_output=True, text=True, timeout=120)
    assert "child status -2" in plain.stdout and "stdin 'hi\\n'" in plain.stdout
    assert "child status -2" in traced.stdout + traced.stderr, traced.stdout + traced.stderr
    assert "stdin 'hi\\n'" in traced.stdout + traced.stderr


LAUNCHER = '''
import subprocess, sys
# the training runs in a child this script starts: the traced process itself runs no model
done = subprocess.run([sys.executable, "-c", "print('step 4 nan')"], capture_output=True, text=True)
print(done.stdout.strip(), flush=True)
'''

ONE_STEP = '''
import torch
model = torch.nn.Linear(2, 1)
model(torch.ones(4, 2)).pow(2).mean().backward()
'''


def test_a_launcher_whose_training_runs_in_a_child_is_said_to_have_watched_nothing(tmp_path):
    (tmp_path / "launcher.py").write_text(LAUNCHER)
    proc = cli("trace", "--out", "report.json", "--", "python", "launcher.py", cwd=tmp_path)  # human + JSON, one run
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["watched"] == {"forwards": 0, "optimizer_steps": 0, "processes": 2}, report  # the child: no torch
    assert report["ok"] is True and report["complete"] is False, report  # no value seen; nothing covered
    assert any(note.startswith("nothing watched: no torch module/optimizer ran") for note in report["notes"]), \
        f'{report["notes"]}'
    assert "nothing watched" in proc.stdout and "ok:" not in proc.stdout, proc.stdout


def test_a_script_that_runs_its_model_is_not_said_to_have_watched_nothing(tmp_path):
    (tmp_path / "one_step.py").write_text(ONE_STEP)
    proc = cli("trace", "--out", "report.json", "--", "python", "one_step.py", cwd=tmp_path)  # human + JSON, one run
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["ok"] and report["complete"] is True and report["watched"]["forwards"] == 1, report
    assert not any(note.startswith("nothing watched: no torch module/optimizer ran") for note in report["notes"]), \
        f'{report["notes"]}'
    assert "ok:" in proc.stdout and "nothing watched" not in proc.stdout, proc.stdout
