"""How long threads waited for a CPU: the kernel's run-queue wait, read from ``/proc`` (Linux schedstats).

A thread that is runnable but not running (another process holds the core) waits in the scheduler's run
queue; the kernel counts that time per thread, in nanoseconds, as the second field of
``/proc/<pid>/task/<tid>/schedstat`` (Documentation/scheduler/sched-stats.rst). On a shared machine it is
the part of a measured time that the machine, not the code, added: a rank the scheduler starves shows a
longer compute phase (:mod:`faultlib.detect.distributed.straggler`), a request served while the service's
thread waited for a core a longer latency (:mod:`faultlib.evidence.timing`). Take two readings around what
is timed, in the thread that does the work; their difference is the wait during it.

No third-party import: a repro's helper process (a feature service in its own container) reads it too.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["run_queue_wait_ms"]

_THREAD = Path("/proc/thread-self/schedstat")
_TASKS = Path("/proc/self/task")


def run_queue_wait_ms(native_id: int | None = None) -> float | None:
    """Milliseconds a thread of this process has spent runnable but not running (waiting for a CPU) since it
    started: the kernel's run-queue wait, field 2 (ns) of its ``schedstat``. Cumulative: subtract an earlier
    reading of the same thread.

    Args:
        native_id: the thread's kernel id (``threading.get_native_id()`` in it; ``Thread.native_id``), for a
            thread other than the calling one; None: the calling thread (``/proc/thread-self/schedstat``).

    Returns:
        the wait in ms, or None where the kernel does not count it (not Linux, or no schedstats) or the thread
        has ended.
    """
    path = _THREAD if native_id is None else _TASKS / str(native_id) / "schedstat"
    try:  # os.read, not Path.read_text: a third of the cost, for a reading taken around every request
        fd = os.open(path, os.O_RDONLY)
        try:
            fields = os.read(fd, 256).split()
        finally:
            os.close(fd)
        return int(fields[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None
