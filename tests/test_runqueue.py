"""faultlib.runqueue: the kernel's run-queue wait (time runnable but not running) of a thread or a process."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from faultlib import runqueue


def _spin_cpu(ms: float) -> None:
    end = time.thread_time() + ms / 1e3
    while time.thread_time() < end:
        pass


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity (Linux)")
def test_a_thread_sharing_its_core_with_a_busy_process_waits_for_it():
    """This thread and a busy loop pinned to one core take turns on it: the thread's CPU time of 150 ms costs it
    a run-queue wait of the same order, which both scopes count; alone it waits far less."""
    core = min(os.sched_getaffinity(0))
    mask = os.sched_getaffinity(0)
    busy = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{core}}})\nwhile True: pass"])
    try:
        os.sched_setaffinity(0, {core})
        time.sleep(0.3)  # the busy loop is on the core
        thread, process = runqueue.run_queue_wait_ms(), runqueue.run_queue_wait_ms("process")
        _spin_cpu(150)
        waited_thread = runqueue.run_queue_wait_ms() - thread
        waited_process = runqueue.run_queue_wait_ms("process") - process
    finally:
        os.sched_setaffinity(0, mask)
        busy.kill()
        busy.wait()
    assert waited_thread > 30, waited_thread  # CFS shares the core about evenly: ~150 ms
    assert waited_process >= waited_thread


def test_readings_are_cumulative_milliseconds_and_the_scope_is_checked():
    first = runqueue.run_queue_wait_ms()
    assert isinstance(first, float) and runqueue.run_queue_wait_ms() >= first  # Linux with schedstats
    assert runqueue.run_queue_wait_ms("process") >= runqueue.run_queue_wait_ms("thread") - 1e-3
    with pytest.raises(ValueError, match="scope must be 'thread' or 'process', got 'core'"):
        runqueue.run_queue_wait_ms("core")


def test_where_the_kernel_does_not_count_it_the_reading_is_none(monkeypatch, tmp_path):
    monkeypatch.setattr(runqueue, "_THREAD", tmp_path / "absent")
    monkeypatch.setattr(runqueue, "_TASKS", tmp_path / "absent")
    assert runqueue.run_queue_wait_ms() is None and runqueue.run_queue_wait_ms("process") is None
    (tmp_path / "task" / "1").mkdir(parents=True)
    (tmp_path / "task" / "1" / "schedstat").write_text("123 4500000 6\n")
    (tmp_path / "task" / "2").mkdir()
    (tmp_path / "task" / "2" / "schedstat").write_text("1 500000 1\n")
    monkeypatch.setattr(runqueue, "_TASKS", tmp_path / "task")
    assert runqueue.run_queue_wait_ms("process") == 5.0
    (tmp_path / "task" / "2" / "schedstat").write_text("garbled\n")
    assert runqueue.run_queue_wait_ms("process") is None
