"""faultlib.runqueue: the kernel's run-queue wait (time runnable but not running) of the calling thread."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from faultlib import runqueue


def _spin_cpu(ms: float) -> None:
    end = time.thread_time() + ms / 1e3
    while time.thread_time() < end:
        pass


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity (Linux)")
def test_a_thread_sharing_its_core_with_a_busy_process_waits_for_it_and_another_thread_reads_it():
    """This thread and a busy loop pinned to one core take turns on it: the thread's CPU time of 150 ms costs it
    a run-queue wait of the same order (CFS shares the core about evenly; more where others use it too), read
    by the thread itself and, by its native id, by another thread (that sleeps meanwhile: it waits far less)."""
    mask = os.sched_getaffinity(0)
    core = min(mask)
    busy = subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{core}}})\nwhile True: pass"])
    me = threading.get_native_id()
    seen: list[float] = []
    reader = threading.Thread(target=lambda: seen.append(runqueue.run_queue_wait_ms(me)))
    try:
        os.sched_setaffinity(0, {core})
        time.sleep(0.3)  # the busy loop is on the core
        before = runqueue.run_queue_wait_ms()
        _spin_cpu(150)
        waited = runqueue.run_queue_wait_ms() - before
        reader.start()
        reader.join()
    finally:
        os.sched_setaffinity(0, mask)
        busy.kill()
        busy.wait()
    assert waited > 30, waited
    assert seen[0] >= before + waited - 1e-6


def test_readings_are_cumulative_milliseconds_and_none_where_the_kernel_does_not_count_them(monkeypatch, tmp_path):
    first = runqueue.run_queue_wait_ms()
    assert isinstance(first, float) and runqueue.run_queue_wait_ms() >= first  # Linux with schedstats
    monkeypatch.setattr(runqueue, "_THREAD", tmp_path / "schedstat")
    (tmp_path / "schedstat").write_text("123 4500000 6\n")
    assert runqueue.run_queue_wait_ms() == 4.5
    (tmp_path / "schedstat").write_text("garbled\n")
    assert runqueue.run_queue_wait_ms() is None
    (tmp_path / "schedstat").unlink()
    assert runqueue.run_queue_wait_ms() is None
    assert runqueue.run_queue_wait_ms(2**31 + 7) is None  # no such thread in this process
