"""The local backend's process handling: own process group, killed whole on timeout."""

from __future__ import annotations

import json
import os
import sys
import time

from faultlib.backends.local import LocalBackend, StepTail
from faultlib.processes import run_process


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); read its state
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_timeout_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(600)\n")
    started = time.monotonic()
    with open(tmp_path / "out", "wb") as out:
        outcome = run_process([sys.executable, "-c", script], env=dict(os.environ), cwd=tmp_path, stdout=out,
                              stderr=out, timeout_s=1.5)
    assert outcome.timed_out and outcome.exit_code is None
    assert time.monotonic() - started < 15
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(grandchild), "the repro's child survived the timeout"


def test_exit_code_passes_through(tmp_path):
    with open(tmp_path / "out", "wb") as out:
        outcome = run_process([sys.executable, "-c", "import sys; sys.exit(7)"], env=dict(os.environ),
                              cwd=tmp_path, stdout=out, stderr=out, timeout_s=30)
    assert outcome.exit_code == 7 and not outcome.timed_out


def test_archive_credentials_do_not_reach_the_repro(monkeypatch):
    from faultlib.processes import repro_environment

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t")
    monkeypatch.setenv("FAULTLIB_S3_ENDPOINT", "http://127.0.0.1:1")
    monkeypatch.setenv("SOME_USER_SETTING", "kept")
    env = repro_environment()
    assert "AWS_SECRET_ACCESS_KEY" not in env and "FAULTLIB_S3_ENDPOINT" not in env
    assert env["SOME_USER_SETTING"] == "kept"


def _step_line(step: int) -> bytes:
    attrs = [{"key": "faultlib.step", "value": {"intValue": str(step)}},
             {"key": "faultlib.steps_total", "value": {"intValue": "5"}}]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "s", "attributes": attrs}]}]}]}).encode()


def test_step_tail_ignores_hostile_lines_and_never_blocks(tmp_path):
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(b"")
    seen = []
    tail = StepTail(traces, "faulted", lambda step, total: seen.append((step, total)))
    with open(traces, "ab") as fh:
        fh.write(b'["faultlib.step"]\n{"faultlib.step": 1}\n{"resourceSpans": [{"scopeSpans": [{"spans": '
                 b'[{"attributes": [{"key": ["faultlib.step"]}]}]}]}]}\n' + _step_line(3) + b"\n")
    tail.poll()
    assert seen == [(3, 5)]
    traces.unlink()
    os.mkfifo(traces)  # reading a FIFO would block the runner's poll loop forever
    tail.poll()
    traces.unlink()
    traces.symlink_to(tmp_path / "elsewhere.jsonl")
    (tmp_path / "elsewhere.jsonl").write_bytes(_step_line(4) + b"\n")
    tail.poll()
    assert seen == [(3, 5)]


def test_output_files_are_not_written_through_a_symlink(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("untouched")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "stdout.txt").symlink_to(target)
    script = tmp_path / "repro.py"
    script.write_text("print('hello')\n")
    outcome = LocalBackend().run_phase(script=script, run_dir=run_dir, phase="control", env={}, timeout_s=30,
                                       on_step=lambda s, t: None)
    assert outcome.exit_code == 0
    assert target.read_text() == "untouched"
    assert "hello" in (run_dir / "stdout.txt").read_text()
