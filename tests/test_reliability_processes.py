"""No process outlives its phase: escaped descendants, Ctrl-C twice, a killed runner, and the
suite-wide check that no test leaves a process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.processes import run_process
from faultlib.processes.tree import is_alive
from faultlib.cases import load_case
from faultlib.runner import Runner
from tests.conftest import REPO, tiny_case_data, write_case

SLEEPER = "import time; time.sleep(600)"

# each escape style leaves one process that is not in the repro's process group when the repro ends
ESCAPES = {
    "new_session": f"""
        p = subprocess.Popen([sys.executable, "-c", {SLEEPER!r}], start_new_session=True)
        record(p.pid)
    """,
    "double_fork": """
        if os.fork() == 0:            # child: fork again, leave the session, and exit at once
            os.setsid()
            if os.fork() == 0:
                record(os.getpid())
                time.sleep(600)
            os._exit(0)
    """,
    "setsid": """
        if os.fork() == 0:
            os.setsid()
            record(os.getpid())
            time.sleep(600)
            os._exit(0)
    """,
    "no_env": """
        if os.fork() == 0:            # a daemon that also drops its environment (no tree token to go by)
            os.setsid()
            if os.fork() == 0:
                os.execve(sys.executable, [sys.executable, "-c", "import os, time; open({!r}, 'a')"
                          ".write(str(os.getpid()) + chr(10)); time.sleep(600)".format(PIDS)], {})
            os._exit(0)
    """,
}


def escape_script(style: str, pid_file: Path, end: str) -> str:
    """A repro that starts one escaping process, waits until it recorded its PID, then ends by ``end``."""
    body = textwrap.dedent(ESCAPES[style])
    ending = {"exit": "sys.exit(0)", "crash": "raise RuntimeError('crash')", "hang": "time.sleep(600)",
              "interrupt": "time.sleep(600)"}[end]
    return (f"import os, subprocess, sys, time\nPIDS = {str(pid_file)!r}\n"
            "def record(pid):\n    open(PIDS, 'a').write(f'{pid}\\n')\n"
            + body +
            "while not os.path.exists(PIDS) or not open(PIDS).read().endswith('\\n'):\n    time.sleep(0.01)\n"
            "print('escaped', flush=True)\n" + ending + "\n")


def _pids(pid_file: Path) -> list[int]:
    return [int(line) for line in pid_file.read_text().split()]


def _gone(pids, timeout_s=5.0) -> list[int]:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and any(is_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if is_alive(p)]


@pytest.mark.parametrize("end", ["exit", "crash", "hang", "interrupt"])
@pytest.mark.parametrize("style", sorted(ESCAPES))
def test_escaped_descendants_die_with_their_phase(tmp_path, style, end):
    pid_file = tmp_path / "pids"
    script = escape_script(style, pid_file, end)

    def interrupt_when_escaped():
        if end == "interrupt" and pid_file.exists() and pid_file.read_text().endswith("\n"):
            raise KeyboardInterrupt  # what Ctrl-C raises in the runner's wait loop

    with open(tmp_path / "out", "wb") as out:
        try:
            outcome = run_process([sys.executable, "-c", script], env=dict(os.environ), cwd=tmp_path, stdout=out,
                                  stderr=out, timeout_s=3 if end == "hang" else 60, on_poll=interrupt_when_escaped)
        except KeyboardInterrupt:
            assert end == "interrupt"
        else:
            assert end != "interrupt"
            assert outcome.timed_out is (end == "hang")
    escaped = _pids(pid_file)
    assert escaped, (tmp_path / "out").read_text()
    assert _gone(escaped, timeout_s=0.5) == [], f"{style}/{end}: escaped process survived its phase"


RUNNER = """
import os, signal, subprocess, sys
from faultlib.backends import local
# a shell starts background jobs with SIGINT ignored, and Python then installs no Ctrl-C handler:
# the runner under test gets the one an interactive `faultlib run` has
signal.signal(signal.SIGINT, signal.default_int_handler)
local.TERM_GRACE_S = 60.0  # a repro ignoring SIGTERM would hold the runner this long without escalation
# the repro ignores SIGTERM, but notes that it got one (the test then knows the grace period began)
repro = ("import os, signal, sys, time; "
         "signal.signal(signal.SIGTERM, lambda *a: open(sys.argv[1] + '.term', 'w').write('1')); "
         "open(sys.argv[1], 'w').write(str(os.getpid()))\\n"
         "while True: time.sleep(1)")
local.run_process([sys.executable, "-c", repro, sys.argv[1]], env=dict(os.environ), cwd=os.getcwd(),
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout_s=600)
"""


def _start_runner(tmp_path):
    pid_file = tmp_path / "repro.pid"
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(pid_file)], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(REPO)}, stderr=subprocess.PIPE)
    end = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < end:
        time.sleep(0.02)
    return runner, int(pid_file.read_text())


def test_second_ctrl_c_during_the_grace_period_kills_at_once(tmp_path):
    runner, repro = _start_runner(tmp_path)
    runner.send_signal(signal.SIGINT)
    term = tmp_path / "repro.pid.term"
    end = time.monotonic() + 60  # two SIGINTs sent before the first is handled would count as one
    while not term.exists() and time.monotonic() < end:
        time.sleep(0.02)
    assert term.exists(), "the first Ctrl-C did not SIGTERM the repro"
    assert is_alive(repro), "the repro ignores SIGTERM: it must still be in its grace period"
    assert runner.poll() is None
    runner.send_signal(signal.SIGINT)
    started = time.monotonic()
    runner.wait(timeout=20)
    assert time.monotonic() - started < 10, "the second Ctrl-C must escalate to SIGKILL, not wait 60 s"
    assert b"KeyboardInterrupt" in runner.stderr.read()
    runner.stderr.close()
    assert _gone([repro]) == [], "the repro outlived its runner"


def test_sigkill_of_the_runner_kills_the_repro(tmp_path):
    runner, repro = _start_runner(tmp_path)
    runner.kill()  # no handler, no cleanup: only PR_SET_PDEATHSIG can stop the repro now
    runner.wait()
    runner.stderr.close()
    assert _gone([repro]) == [], "the repro outlived its SIGKILLed runner (PR_SET_PDEATHSIG)"


APPENDER_REPRO = '''
import os, subprocess, sys
from faultlib import repro

with repro.context() as ctx:
    with ctx.step(0, total=1) as span:
        span.set(value=0)
    if ctx.phase == "faulted":
        traces = os.path.join(os.environ["FAULTLIB_RUN_DIR"], "traces.jsonl")
        code = ("import os, sys, time\\n"
                "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\\n"
                "open(sys.argv[2], 'w').write(str(os.getpid()))\\n"
                "while True:\\n    os.write(fd, b'{\\"resourceSpans\\": []}\\\\n'); time.sleep(0.001)\\n")
        subprocess.Popen([sys.executable, "-c", code, traces, ctx.params["pid_file"]], start_new_session=True)
        while not os.path.exists(ctx.params["pid_file"]):
            pass
'''


def test_a_descendant_appending_to_traces_is_killed_and_the_manifest_holds(tmp_path):
    data = tiny_case_data("appender_case")
    data["repro"]["params"] = {"pid_file": str(tmp_path / "appender.pid")}
    data["assertions"] = [{"id": "ran", "when": "after", "test": "test_ran", "description": "d"}]
    case_dir = write_case(tmp_path / "cases", data, repro=APPENDER_REPRO,
                          test="def test_ran(evidence):\n    assert evidence.faulted.spans\n")
    archive = FileArchive(tmp_path / "archive")
    record = Runner(archive).run(load_case(case_dir))
    run_dir = archive.root / record.case["id"] / record.run_id
    appender = int((tmp_path / "appender.pid").read_text())
    assert _gone([appender], timeout_s=0.5) == []
    time.sleep(0.2)
    assert verify(run_dir) == []
    assert record.verdict.value == "passed", record.error


INNER_TEST = '''
import subprocess, sys

def test_leaks():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "LEAKED-BY-TEST"])

def test_clean():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
'''


def test_the_suite_fails_a_test_that_leaves_a_process_and_kills_it(tmp_path):
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q", "-p", "no:cacheprovider",
                           "test_inner.py"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout
    assert "2 passed, 1 error" in proc.stdout  # test_leaks passes, then errors at teardown
    assert "the test left processes running" in proc.stdout and "LEAKED-BY-TEST" in proc.stdout
    leaked = subprocess.run(["pgrep", "-f", "LEAKED-BY-TEST"], capture_output=True, text=True).stdout.split()
    assert leaked == []


def test_the_children_lists_find_what_a_scan_of_proc_finds(monkeypatch):
    """descendants_of (the kernel's children lists) names the same processes as descendants (a scan of every
    process's parent link): a grandchild, a zombie not reaped yet, an orphan re-parented to this subreaper,
    and a child a thread started; and where the kernel keeps no lists it asks descendants."""
    import threading

    from faultlib.processes import tree

    tree.become_subreaper()
    me, scan = os.getpid(), tree.descendants
    nested = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen(['sleep', '30']);"
                               "print('up', flush=True); time.sleep(30)"], stdout=subprocess.PIPE, text=True)
    zombie = subprocess.Popen(["true"])
    subprocess.run(["sh", "-c", "(sleep 30 &); exit 0"], check=True)  # its sleep is re-parented to this process
    from_thread: list[subprocess.Popen] = []
    thread = threading.Thread(target=lambda: from_thread.append(subprocess.Popen(["sleep", "30"])))
    thread.start()
    thread.join()
    orphans: list[int] = []
    try:
        assert nested.stdout.readline().strip() == "up"
        while tree.proc_info(zombie.pid).alive:
            time.sleep(0.01)
        started = {nested.pid, zombie.pid, from_thread[0].pid}
        orphans += [p.pid for p in tree.descendants([me]) if p.ppid == me and p.pid not in started
                   and tree.cmdline(p.pid) == "sleep 30"]
        assert len(orphans) >= 1
        found = sorted(tree.descendants_of([me]), key=lambda p: p.pid)
        assert found == sorted(tree.descendants([me]), key=lambda p: p.pid)
        by_pid = {p.pid: p for p in found}
        assert started | set(orphans) <= set(by_pid) and by_pid[zombie.pid].state == "Z"
        assert any(p.ppid == nested.pid for p in found)  # the grandchild
        monkeypatch.setattr(tree, "_has_children_lists", lambda: False)
        monkeypatch.setattr(tree, "descendants", lambda roots: ["scanned", list(roots)])
        assert tree.descendants_of([me]) == ["scanned", [me]]
    finally:
        for pid in [p.pid for p in scan([nested.pid])] + orphans:
            os.kill(pid, signal.SIGKILL)
        for proc in (nested, from_thread[0]):
            proc.kill()
            proc.wait()
        zombie.wait()
        for pid in orphans:
            os.waitpid(pid, 0)
