"""`faultlib trace` black-box: how a script ends maps to one documented exit code and reason, and
bad usage (script, interpreter, --out, --dump-dir) is refused before the script runs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faultlib.package import PACKAGE_DIR
from tests.conftest import REPO, built_once, cli

torch = pytest.importorskip("torch")

HERE = Path(__file__).parent
FAIL = HERE / "fail_script.py"
NAN = HERE / "nan_script.py"


def trace_json(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, dict]:
    proc = cli("trace", "--json", *args, cwd=cwd)
    # no traceback through faultlib's own code (its package directory, whatever the checkout's folder is called)
    assert os.path.join(PACKAGE_DIR, "") not in proc.stderr, proc.stderr
    return proc, json.loads(proc.stdout)


# mode -> (exit code, reason, script_exit, error, stopped_by_trace)
ENDINGS = {
    "healthy": (0, None, 0, None, False),
    "raise": (4, "script_raised", 1, "ValueError: bad config [/oops]", False),
    "exit_1": (4, "script_exit", 1, None, False),
    "exit_message": (4, "script_exit", 1, None, False),
    "exit_3": (3, "script_exit", 3, None, False),
    "os_exit_5": (5, "script_exit", 5, None, False),
    "keyboard_interrupt": (4, "interrupted", None, "KeyboardInterrupt", False),
    "sigkill": (4, "interrupted", None, "killed by SIGKILL", False),
}


@pytest.fixture(scope="module")
def human_run(tmp_path_factory):
    """Factory: ``human_run(mode)`` is ``(proc, report)`` of one ``faultlib trace --out report.json -- python
    fail_script.py MODE`` (the human output on ``proc``, the JSON report ``--json`` prints from ``--out``), made once
    per suite run (:func:`tests.conftest.built_once`, whichever pytest-xdist worker asks first) and shared read-only
    by the tests of its human output and of its exit code and reason."""

    def build(folder: Path, mode: str) -> None:
        proc = cli("trace", "--out", str(folder / "report.json"), "--", "python", str(FAIL), mode, cwd=folder)
        (folder / "proc.json").write_text(json.dumps([proc.returncode, proc.stdout, proc.stderr]))

    def run(mode: str) -> tuple[subprocess.CompletedProcess, dict]:
        folder = built_once(tmp_path_factory, f"trace-outcome-{mode}", lambda f: build(f, mode))
        code, out, err = json.loads((folder / "proc.json").read_text())
        assert os.path.join(PACKAGE_DIR, "") not in err, err  # as trace_json checks
        proc = subprocess.CompletedProcess(["faultlib", "trace", "--", "python", str(FAIL), mode], code, out, err)
        return proc, json.loads((folder / "report.json").read_text())

    return run


#: the endings the human-output tests below read: their exit-code test reads the same run (JSON from --out)
HUMAN = ("raise", "exit_message", "exit_3", "exit_1")


@pytest.mark.parametrize("mode", sorted(ENDINGS))
def test_how_the_script_ended_sets_exit_code_and_reason(mode, tmp_path, human_run):
    if mode in HUMAN:
        proc, report = human_run(mode)
        script_out = proc.stdout  # the script's stdout, as it printed it
    else:
        proc, report = trace_json("--", "python", str(FAIL), mode, cwd=tmp_path)
        script_out = proc.stderr  # under --json the script's stdout goes to stderr
    code, reason, script_exit, error, stopped = ENDINGS[mode]
    assert proc.returncode == code, proc.stderr
    assert (report["ok"], report["reason"], report["exit_code"]) == (reason is None, reason, code)
    assert (report["script_exit"], report["error"], report["stopped_by_trace"]) == (script_exit, error, stopped)
    assert report["first_nonfinite"] is None and report["dump"] is None
    assert "trained" in script_out  # the script really ran


def test_script_traceback_and_exit_message_are_printed_as_python_would(human_run):
    proc, _ = human_run("raise")
    assert proc.returncode == 4
    assert f'File "{FAIL}", line' in proc.stderr and "ValueError: bad config [/oops]" in proc.stderr
    assert "runpy" not in proc.stderr and "boot.py" not in proc.stderr  # only the script's frames
    assert "error: the script raised ValueError: bad config [/oops] (exit code 4)" in proc.stderr  # no markup
    proc, _ = human_run("exit_message")
    assert proc.returncode == 4 and "config file missing" in proc.stderr


def test_a_scripts_own_exit_code_is_said_once(human_run):
    proc, _ = human_run("exit_3")
    assert proc.returncode == 3
    assert "error: the script exited with code 3; no non-finite value seen before it ended" in proc.stderr
    assert "(exit code 3)" not in proc.stderr
    proc, _ = human_run("exit_1")  # trace's own 4 differs: both said
    assert proc.returncode == 4 and "the script exited with code 1 (exit code 4)" in proc.stderr


def test_a_finding_wins_over_a_later_failure_with_continue(tmp_path):
    proc, report = trace_json("--continue", "--dump-dir", str(tmp_path), "--", "python", str(FAIL),
                              "nan_then_raise", cwd=tmp_path)
    assert proc.returncode == 1 and report["reason"] == "nonfinite"
    assert report["tripped_steps"] == 2  # the NaN step corrupts the weights: the next step has one too
    assert report["script_exit"] == 1 and report["error"] == "ValueError: bad config [/oops]"
    assert any("also failed" in note for note in report["notes"])


def test_sigterm_to_trace_interrupts_the_script(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "faultlib", "trace", "--json", "--", "python", str(FAIL), "sleep"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "ready" not in proc.stderr.readline():
        pass
    proc.send_signal(signal.SIGTERM)  # to faultlib trace only, as a CI cancel does
    out, err = proc.communicate(timeout=60)
    report = json.loads(out)
    assert proc.returncode == 4 and report["reason"] == "interrupted" and report["ok"] is False, err
    # the script gets SIGINT; on a loaded machine its grace period may run out first (then SIGKILL)
    assert report["error"] in ("KeyboardInterrupt", "killed by SIGKILL") and "done" not in err


# -- the interpreter --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    """Two real virtual environments: `bare` (no torch, no faultlib) and `linked` (torch and
    faultlib through a .pth file naming this checkout and its environment's site-packages)."""
    root = tmp_path_factory.mktemp("venvs")
    for name in ("bare", "linked"):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / name)], check=True)
    site = next((root / "linked" / "lib").glob("python*/site-packages"))
    torch_site = Path(torch.__file__).resolve().parents[1]
    (site / "faultlib_test.pth").write_text(f"{REPO}\n{torch_site}\n")
    return root


def test_an_interpreter_without_faultlib_could_not_start(venvs, tmp_path):
    proc, report = trace_json("--", str(venvs / "bare" / "bin" / "python"), str(FAIL), "healthy", cwd=tmp_path)
    assert proc.returncode == 4 and report["reason"] == "could_not_start" and report["script_exit"] is None
    assert "No module named 'torch'" in report["error"] and "trained" not in proc.stderr


@pytest.mark.skipif(not Path("/usr/bin/python3").is_file(), reason="no /usr/bin/python3 on this machine")
def test_system_python_is_used_as_given(tmp_path):
    probe = subprocess.run(["/usr/bin/python3", "-c", "import torch, faultlib"], capture_output=True)
    if probe.returncode == 0:
        pytest.skip("/usr/bin/python3 imports torch and faultlib here: nothing to tell apart")
    proc, report = trace_json("--", "/usr/bin/python3", str(FAIL), "healthy", cwd=tmp_path)
    assert proc.returncode == 4 and report["reason"] == "could_not_start"


def test_the_given_interpreter_runs_the_script(venvs, tmp_path):
    script = tmp_path / "where.py"
    script.write_text("import sys, torch\nprint('prefix', sys.prefix)\n")
    proc, report = trace_json("--", str(venvs / "linked" / "bin" / "python"), str(script), cwd=tmp_path)
    assert proc.returncode == 0 and report["ok"], proc.stderr
    assert f"prefix {venvs / 'linked'}" in proc.stderr


# -- checks before the script runs ------------------------------------------------------------
@pytest.fixture
def marker_script(tmp_path):
    """A script that leaves a file behind when it runs."""
    script = tmp_path / "marks.py"
    script.write_text("from pathlib import Path\nPath(__file__).with_name('ran').write_text('yes')\n")
    return script


def unwritable_dirs(tmp_path: Path) -> list[Path]:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    paths = [a_file, a_file / "below", Path("/proc/faultlib-trace-test")]
    if os.geteuid() != 0:  # root writes in a read-only directory anyway
        read_only = tmp_path / "read_only"
        read_only.mkdir(mode=0o555)
        paths.append(read_only)
    return paths


def test_unwritable_dump_dir_is_refused_before_the_script_runs(marker_script, tmp_path):
    for dump_dir in unwritable_dirs(tmp_path):
        proc = cli("trace", "--dump-dir", str(dump_dir), "--", "python", str(marker_script), cwd=tmp_path)
        assert proc.returncode == 2 and "--dump-dir" in proc.stderr and proc.stderr.startswith("error:"), proc.stderr
        assert "Traceback" not in proc.stderr and not (tmp_path / "ran").exists()
    proc = cli("trace", "--json", "--dump-dir", str(tmp_path / "a_file"), "--", "python", str(NAN), "unsafe_where",
               cwd=tmp_path)  # a NaN script: never "the replay did not reproduce it"
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"] == "InputError"
    assert "replay" not in proc.stdout + proc.stderr


def test_report_path_that_cannot_be_written_is_refused_before_the_script_runs(marker_script, tmp_path):
    (tmp_path / "a_file").write_text("x")
    for out in (tmp_path, tmp_path / "a_file" / "report.json", Path("/proc/faultlib-trace-test/report.json")):
        proc = cli("trace", "--out", str(out), "--", "python", str(marker_script), cwd=tmp_path)
        assert proc.returncode == 2 and "--out" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert not (tmp_path / "ran").exists()


def test_missing_interpreter_is_bad_usage(tmp_path, marker_script):
    proc = cli("trace", "--", str(tmp_path / "nope" / "python3"), str(marker_script), cwd=tmp_path)
    assert proc.returncode == 2 and "no such interpreter" in proc.stderr and not (tmp_path / "ran").exists()


def test_help_lists_the_exit_codes():
    proc = cli("trace", "--help", cwd=HERE)
    assert proc.returncode == 0
    for line in ("0      the script ran to its end", "1      a non-finite value", "2      bad usage",
                 "4      the script failed on its own", "other  the script's own exit code"):
        assert line in proc.stdout
