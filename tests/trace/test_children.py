"""`faultlib trace` on a launcher: the Python children it starts are traced through the environment (each reports,
the parent's report merges them), and a child that cannot be armed is listed as not traced, with why."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.conftest import cli

pytest.importorskip("torch")

# the training a launcher starts: at step 2 its loss goes through a square root of a negative number (NaN), line 10
TRAINER = '''
import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
for step in range(5):
    batch = torch.full((6, 3), 2.0)
    loss = net(batch).square().mean()
    if step == 2 and BROKEN:
        shift = 1e6
        loss = torch.sqrt(loss - shift)
    net.zero_grad()
    loss.backward()
    with torch.no_grad():                  # by hand: torch.optim's first step imports torch._dynamo (seconds)
        for p in net.parameters():
            p -= 0.05 * p.grad
print("trainer finished", flush=True)
'''

LAUNCHER = '''
import subprocess, sys
# this script runs no model itself: its child does the training
done = subprocess.run([sys.executable, "trainer.py"])
print("trainer exit code", done.returncode, flush=True)
'''


def _write(tmp_path, *, broken: bool) -> None:
    (tmp_path / "trainer.py").write_text(TRAINER.replace("BROKEN", str(broken)))
    (tmp_path / "launcher.py").write_text(LAUNCHER)


def test_a_nan_in_the_child_a_launcher_starts_is_named_with_its_line_and_exit_1(tmp_path):
    _write(tmp_path, broken=True)
    # one trace (two script runs and their children) for both reports: the human one on stdout, the JSON in --out
    proc = cli("trace", "--quiet-replay", "--out", "report.json", "--", "python", "launcher.py", cwd=tmp_path,
               timeout=400)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    first = report["first_nonfinite"]
    assert report["reason"] == "nonfinite" and report["replayed"] is True, report
    assert (first["step"], first["op"], first["line"]) == (2, "aten::sqrt", 10), f"{first}"
    assert first["file"].endswith("trainer.py") and first["process"]["argv"][-1] == "trainer.py", f"{first}"
    [child] = report["children"]
    assert child["traced"] and child["pid"] == first["process"]["pid"] and child["first_nonfinite"]["step"] == 2
    assert "trainer exit code 0" in proc.stdout  # the watch never stops a child: its exit code is its own
    assert "child pid" in proc.stdout and "trainer.py:10" in proc.stdout, proc.stdout


def test_a_healthy_launcher_is_ok_with_its_child_counted_as_watched(tmp_path, monkeypatch):
    _write(tmp_path, broken=False)
    own = tmp_path / "own_site"  # the interpreter's own sitecustomize still runs in the child
    own.mkdir()
    (own / "sitecustomize.py").write_text("import os\nos.environ['OWN_SITE_RAN'] = 'yes'\n")
    (tmp_path / "trainer.py").write_text("import os\nprint('own site', os.environ.get('OWN_SITE_RAN'), flush=True)\n"
                                         + (tmp_path / "trainer.py").read_text())
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(own), os.environ.get("PYTHONPATH")])))
    proc = cli("trace", "--json", "--", "python", "launcher.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] and report["watched"] == {"forwards": 5, "optimizer_steps": 0, "processes": 2}, report
    [child] = report["children"]
    assert child["traced"] and child["watched"]["forwards"] == 5 and child["first_nonfinite"] is None, child
    assert not any(note.startswith("nothing watched: no torch module/optimizer ran") for note in report["notes"]), \
        f'{report["notes"]}'
    assert "own site yes" in proc.stderr and "trainer exit code 0" in proc.stderr, proc.stderr


THEN_ITS_OWN = '''
import subprocess, sys
import torch
subprocess.run([sys.executable, "trainer.py"])       # its child's NaN comes first
probe = torch.nn.Linear(3, 1)
probe(torch.full((2, 3), float("nan")))               # then one of its own
'''


def test_a_child_value_seen_before_the_script_own_is_the_answer(tmp_path):
    _write(tmp_path, broken=True)
    (tmp_path / "then_own.py").write_text(THEN_ITS_OWN)
    proc = cli("trace", "--json", "--quiet-replay", "--", "python", "then_own.py", cwd=tmp_path, timeout=400)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    first = report["first_nonfinite"]
    assert first["process"] is not None and (first["op"], first["line"]) == ("aten::sqrt", 10), f"{first}"
    assert any(note.startswith("the script saw one later, at step 0") for note in report["notes"]), \
        f'{report["notes"]}'


UNARMABLE = '''
import os, subprocess, sys
subprocess.run([sys.executable, "-I", "-c", "print('isolated ran')"], check=True)
subprocess.run([sys.executable, "-c", "print('bare env ran')"], env={"PATH": os.environ.get("PATH", "")}, check=True)
subprocess.run(["sh", "-c", "echo shell ran"], check=True)
own_path = {**os.environ, "PYTHONPATH": "libs"}  # replaced, not extended
subprocess.run([sys.executable, "-u", "-c", "print('own path ran')"], env=own_path, check=True)
'''


def test_children_that_cannot_be_armed_are_listed_as_not_traced(tmp_path):
    (tmp_path / "unarmable.py").write_text(UNARMABLE)
    proc = cli("trace", "--json", "--", "python", "unarmable.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    rows = {row["argv"][1] if row["argv"][0] == sys.executable else row["argv"][0]: row for row in report["children"]}
    assert set(rows) == {"-I", "-c", "sh", "-u"}, rows
    assert not any(row["traced"] for row in rows.values())
    assert "isolated" in rows["-I"]["why_not"] and "environment" in rows["-c"]["why_not"]
    assert "not a Python interpreter" in rows["sh"]["why_not"] and "PYTHONPATH replaced" in rows["-u"]["why_not"]
    assert any(note.startswith("4 child process(es) not traced") for note in report["notes"]), \
        f'{report["notes"]}'
    assert all(f"{what} ran" in proc.stderr for what in ("isolated", "bare env", "shell", "own path")), proc.stderr


@pytest.mark.parametrize("argv, flag", [
    (["python3", "-u", "-I", "train.py"], "-I"), (["python", "-Es", "train.py"], "-E"), (["python", "-S"], "-S"),
    (["python", "train.py", "-I"], None),  # the script's own argument
    (["python", "-c", "import sys", "-I"], None), (["python", "-W", "ignore", "train.py"], None),
])
def test_the_options_that_keep_a_child_from_being_armed_are_read_up_to_the_script(argv, flag):
    from faultlib.trace.family import _isolated

    assert _isolated(argv) == flag


def test_a_script_name_with_a_newline_stays_on_its_row_of_the_report(tmp_path):
    name = "bad\nname.py"
    (tmp_path / name).write_text("import torch\nm = torch.nn.Linear(2, 1)\nm(torch.tensor([[float('nan'), 1.0]]))\n")
    proc = cli("trace", "--quiet-replay", "--", "python", name, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    row = next(line for line in proc.stdout.splitlines() if "source line" in line)
    assert "bad\\nname.py:3" in row and not any(line.strip().startswith("name.py") for line in proc.stdout.splitlines())
