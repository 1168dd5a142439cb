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

from pathlib import Path

__all__ = ["run_queue_wait_ms"]

_THREAD = Path("/proc/thread-self/schedstat")


def run_queue_wait_ms() -> float | None:
    """Milliseconds the calling thread has spent runnable but not running (waiting for a CPU) since it started:
    the kernel's run-queue wait, field 2 (ns) of ``/proc/thread-self/schedstat``. Cumulative: subtract an earlier
    reading of the same thread. None where the kernel does not count it (not Linux, or no schedstats)."""
    try:
        return int(_THREAD.read_text().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None
