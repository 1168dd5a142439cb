"""Exit codes say what happened, whatever the flags: ``--debug`` adds a traceback and keeps the code; an
interrupted command says what it keeps only when it keeps something."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.conftest import cli


def test_debug_adds_a_traceback_and_keeps_exit_2(tmp_path):
    plain = cli("check", "labels", "missing.json", "other.json", cwd=tmp_path)
    debug = cli("--debug", "check", "labels", "missing.json", "other.json", cwd=tmp_path)
    assert plain.returncode == debug.returncode == 2, f"{plain.stderr}; {debug.stderr}"
    assert "Traceback" not in plain.stderr and "Traceback" in debug.stderr
    assert "error: " in debug.stderr


def test_sigterm_during_a_check_says_aborted_without_promising_evidence(tmp_path):
    started = tmp_path / "importing"  # written by the user's module once faultlib imports it
    (tmp_path / "slow.py").write_text(f"import time\nopen({str(started)!r}, 'w').close()\ntime.sleep(120)\n"
                                      "ds = [[1], [2]]\n")
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "check", "batching", "slow.py:ds", "--batch-size", "2"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)  # until faultlib has started and is importing the user's module (which sleeps)
        assert started.exists() and proc.poll() is None, proc.poll()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "aborted by SIGTERM" in err and "evidence" not in err


def test_a_group_with_nothing_to_do_is_bad_usage_like_the_root(tmp_path):
    for args in ((), ("check",), ("archive",)):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, f"{args}: {proc.stdout} {proc.stderr}"
    proc = cli("check", cwd=tmp_path)
    assert "name a check" in proc.stderr and "labels" in proc.stderr  # says what to do, lists the checks
    assert cli("check", "--list-kinds", cwd=tmp_path).returncode == 0


def test_usage_errors_under_json_are_one_json_object_on_stdout(tmp_path):
    import json

    for args, command, phrase in ((("check", "--json"), "faultlib check", "name a check"),
                                  (("check", "nope", "--json"), "faultlib check", "no check named 'nope'"),
                                  (("check", "labels", "--json"), "faultlib check labels", "Missing argument"),
                                  (("trace", "--json"), "faultlib trace", "Missing argument")):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, f"{args}: {proc.stderr}"
        report = json.loads(proc.stdout)
        assert (report["error"], report["command"], report["exit_code"]) == ("UsageError", command, 2), report
        assert phrase in report["message"], report
    # --json after `--` belongs to the traced script, not to faultlib: a human usage error
    proc = cli("trace", "--continue", "--threshold-ms", "5", "--", "python", "x.py", "--json", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "" and "--threshold-ms goes with --asyncio" in proc.stderr
