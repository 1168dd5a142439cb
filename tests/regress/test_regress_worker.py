"""A worker is stopped once: a killed regression tells it twice (its pipe closes, then ``PR_SET_PDEATHSIG``'s
SIGTERM comes), in either order, and a second ``KeyboardInterrupt`` would abort finishing the run. A stop
Python swallowed (raised inside an at-fork callback) is sent again, for the worker and for the CLI."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from faultlib import stops
from faultlib.regress import worker


@pytest.fixture
def fresh_worker(monkeypatch):
    monkeypatch.setattr(stops, "_raised", None)
    monkeypatch.setattr(worker, "_parent_pid", None)  # no orphan alarm in this process


def _closed_pipe_writer() -> worker.EventWriter:
    read, write = os.pipe()
    os.close(read)
    return worker.EventWriter(io.TextIOWrapper(io.FileIO(write, "w", closefd=True), write_through=True))


def test_the_closed_pipe_interrupts_and_the_later_sigterm_does_not(fresh_worker):
    events = _closed_pipe_writer()
    with pytest.raises(KeyboardInterrupt):
        events.step("faulted", 3, 10)
    assert events.parent_gone
    events.assertions_started(3)  # the parent is gone: nothing written, nothing raised
    worker._interrupt(signal.SIGTERM, None)  # PR_SET_PDEATHSIG's SIGTERM, while the run is being finished


def test_the_sigterm_interrupts_and_the_later_closed_pipe_does_not(fresh_worker):
    events = _closed_pipe_writer()
    with pytest.raises(KeyboardInterrupt):
        worker._interrupt(signal.SIGTERM, None)
    events.step("faulted", 3, 10)  # finishing the run writes an event into the closed pipe: absorbed
    assert events.parent_gone
    worker._interrupt(signal.SIGHUP, None)


def test_a_live_parent_hears_every_event(fresh_worker):
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream:
        events = worker.EventWriter(stream)
        events.step("control", 1, 2)
        events.assertions_started(3)
    with os.fdopen(read) as lines:
        assert [line.split('"')[3] for line in lines] == ["step", "assertions_started"]


SWALLOWED_STOP = """
import os, signal, sys
INSTALL
# the stop comes while an at-fork callback runs (as logging's does): Python prints and drops what it raises
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGTERM) or sum(range(100000)))
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    total = sum(range(3 * 10 ** 7))  # the workload the worker would go on with
    print("ran on", total)
except KeyboardInterrupt:
    print("stopped")
"""


INSTALLS = {
    "regress worker": "from faultlib.regress import worker; worker.install_stop_handlers()",
    "faultlib CLI": ("from faultlib.cli import app; from faultlib import stops; "
                     "signal.signal(signal.SIGTERM, app._terminate); stops.resend_swallowed_stops()"),
}


@pytest.mark.parametrize("who", sorted(INSTALLS))
def test_a_stop_swallowed_by_an_at_fork_callback_is_sent_again(tmp_path, who):
    script = SWALLOWED_STOP.replace("INSTALL", INSTALLS[who])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(Path(worker.__file__).parents[2])})
    assert "Exception ignored" in proc.stderr, "the first KeyboardInterrupt was raised inside the callback"
    assert proc.stdout.strip() == "stopped", proc.stdout + proc.stderr
