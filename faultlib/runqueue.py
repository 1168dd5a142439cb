"""How long threads waited for a CPU: the kernel's run-queue wait, read from ``/proc`` (Linux schedstats).

A thread that is runnable but not running (another process holds the core) waits in the scheduler's run
queue; the kernel counts that time per thread, in nanoseconds, as the second field of
``/proc/<pid>/task/<tid>/schedstat`` (Documentation/scheduler/sched-stats.rst). On a shared machine it is
the part of a measured time that the machine, not the code, added: a rank the scheduler starves shows a
longer compute phase (:mod:`faultlib.detect.distributed.straggler`), a request served while the service's
thread waited for a core a longer latency (:mod:`faultlib.evidence.timing`). Take two readings around what
is timed; their difference is the wait during it.

No third-party import: a repro's helper process (a feature service in its own container) reads it too.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["run_queue_wait_ms"]

_THREAD = Path("/proc/thread-self/schedstat")
_TASKS = Path("/proc/self/task")


def run_queue_wait_ms(scope: str = "thread") -> float | None:
    """Milliseconds spent runnable but not running (waiting for a CPU) since start, the kernel's run-queue wait.

    Args:
        scope: ``thread``: the calling thread (``/proc/thread-self/schedstat``); ``process``: the sum over the
            calling process's threads alive now (``/proc/self/task/*/schedstat``; a thread that ended since
            the previous reading takes its share with it, so read both ends while the threads live).

    Returns:
        the wait in ms (cumulative: subtract an earlier reading), or None where the kernel does not count it
        (not Linux, or a kernel without schedstats).

    Raises:
        ValueError: an unknown ``scope``.
    """
    if scope == "thread":
        return _read_ms(_THREAD)
    if scope != "process":
        raise ValueError(f"scope must be 'thread' or 'process', got {scope!r}")
    try:
        tasks = list(_TASKS.iterdir())
    except OSError:
        return None
    total = 0.0
    for task in tasks:
        waited = _read_ms(task / "schedstat")
        if waited is None:
            if task.exists():  # the kernel does not count it; a thread that just ended is only left out
                return None
            continue
        total += waited
    return total


def _read_ms(path: Path) -> float | None:
    try:
        return int(path.read_text().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return None
