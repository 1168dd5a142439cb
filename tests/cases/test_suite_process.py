"""The assertion suite's process (faultlib.cases.suite_process): pytest's exit code, output, threads and
``atexit`` functions as a normal exit has them, and no interpreter teardown after them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from faultlib.cases import load_case
from tests.conftest import tiny_case_data, write_case

#: a suite that leaves work for the exit: a thread still writing, an atexit function, and an object whose
#: ``__del__`` only the interpreter's teardown would call (kept alive by a module global)
LEAVES_WORK = textwrap.dedent('''
    import atexit
    import os
    import threading
    import time
    from pathlib import Path

    OUT = Path(os.environ["SUITE_OUT"])


    class WrittenAtTeardown:
        def __del__(self):
            (OUT / "teardown.txt").write_text("the interpreter tore the modules down")


    KEPT = WrittenAtTeardown()


    def _late_writer():
        time.sleep(0.3)
        (OUT / "thread.txt").write_text("done")


    def test_leaves_work_for_the_exit():
        threading.Thread(target=_late_writer).start()
        atexit.register(lambda: (OUT / "atexit.txt").write_text("ran"))
        print("the suite printed this")
        assert os.environ.get("SUITE_FAILS") != "1"
''')


def _suite(tmp_path, *, fails: bool, module: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_leaves_work.py").write_text(LEAVES_WORK)
    out = tmp_path / "out"
    out.mkdir()
    env = {"PATH": "/usr/bin:/bin", "SUITE_OUT": str(out), "SUITE_FAILS": "1" if fails else "0",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": ":".join(sys.path)}
    return subprocess.run([sys.executable, "-m", module, "test_leaves_work.py", "-p", "no:cacheprovider",
                           "-c", "/dev/null", "--rootdir", str(tmp_path), "-q", "-s",
                           f"--junitxml={tmp_path / 'junit.xml'}"],
                          check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fails,code", [(False, 0), (True, 1)], ids=["passed", "failed"])
def test_the_suite_ends_as_pytest_would_less_the_teardown(tmp_path, fails, code):
    proc = _suite(tmp_path, fails=fails, module="faultlib.cases.suite_process")
    out = tmp_path / "out"
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "the suite printed this" in proc.stdout and ("1 failed" if fails else "1 passed") in proc.stdout
    assert (tmp_path / "junit.xml").is_file()
    assert (out / "thread.txt").read_text() == "done", "the exit waits for a thread that is not a daemon"
    assert (out / "atexit.txt").read_text() == "ran", "the atexit functions run"
    assert not (out / "teardown.txt").exists(), "no teardown: a module global's __del__ is not called"


def test_plain_pytest_tears_the_modules_down(tmp_path):
    """The look-alike: the same suite under ``python -m pytest`` ends with the teardown (what the suite's own
    process leaves out, and why the test above can tell the two apart)."""
    proc = _suite(tmp_path, fails=False, module="pytest")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "out" / "teardown.txt").is_file()


def test_the_runner_runs_the_assertion_suite_in_that_process(tmp_path, monkeypatch):
    """A case's suite started by the runner (:func:`faultlib.runner.run_assertion_suite`) ends without the
    teardown too, with its verdict read from the JUnit XML as before."""
    from faultlib.runner import _junit_results, run_assertion_suite

    data = tiny_case_data()
    data["assertions"] = [{"id": "leaves_work", "when": "after", "test": "test_leaves_work_for_the_exit",
                           "description": "d"}]
    case = load_case(write_case(tmp_path / "cases", data, test=LEAVES_WORK))
    run_dir, out = tmp_path / "run", tmp_path / "out"
    run_dir.mkdir()
    out.mkdir()
    monkeypatch.setenv("SUITE_OUT", str(out))
    status = {p: {"status": "ok", "exit_code": 0, "duration_s": 0.0, "findings": [], "attempts": []}
              for p in ("control", "faulted")}
    with open(tmp_path / "suite.txt", "wb") as log:
        outcome = run_assertion_suite(case, run_dir, status, junit=tmp_path / "junit.xml", output=log)
    passed, *_ = _junit_results(tmp_path / "junit.xml", case)
    assert outcome.exit_code == 0 and passed == ["leaves_work"], (tmp_path / "suite.txt").read_text()[-2000:]
    assert (out / "atexit.txt").is_file() and (out / "thread.txt").is_file()
    assert not (out / "teardown.txt").exists()


def test_a_thread_pool_left_open_does_not_hang_the_exit(tmp_path):
    """A suite that leaves a ``ThreadPoolExecutor`` open (its workers are not daemons and wait for work): a
    normal exit wakes them first (``threading._register_atexit``, before the threads are joined), so the suite's
    process must too, or it waits for them forever."""
    (tmp_path / "test_pool.py").write_text(textwrap.dedent('''
        from concurrent.futures import ThreadPoolExecutor

        POOL = ThreadPoolExecutor(2)


        def test_uses_a_pool():
            assert POOL.submit(lambda: 1).result() == 1
    '''))
    env = {"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": ":".join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "faultlib.cases.suite_process", "test_pool.py", "-p",
                           "no:cacheprovider", "-c", "/dev/null", "--rootdir", str(tmp_path), "-q"],
                          check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_suite_process_warns_of_nothing_of_its_own(tmp_path):
    """The suite's output is the case's log: it starts pytest the supported way (``pytest.main``), so no
    deprecation warning of the process itself (``pytest.console_main``, deprecated in pytest 9.1) is in it."""
    proc = _suite(tmp_path, fails=False, module="faultlib.cases.suite_process")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "deprecated" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr


def test_a_file_the_suite_left_open_is_flushed(tmp_path):
    """A suite that writes through a file it never closes (a module-level log): a normal exit flushes the
    buffer when the teardown frees the file; the suite's process, which skips the teardown, flushes it itself."""
    (tmp_path / "test_log.py").write_text(textwrap.dedent('''
        LOG = open("written.txt", "w")


        def test_writes_through_an_open_file():
            LOG.write("written by the suite")
    '''))
    env = {"PATH": "/usr/bin:/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": ":".join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "faultlib.cases.suite_process", "test_log.py", "-p",
                           "no:cacheprovider", "-c", "/dev/null", "--rootdir", str(tmp_path), "-q"],
                          check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "written.txt").read_text() == "written by the suite"
