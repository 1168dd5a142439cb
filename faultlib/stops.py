"""Stops: SIGTERM / SIGHUP turned into ``KeyboardInterrupt`` in the main thread, and never lost.

A Python signal handler runs between any two bytecodes of the main thread, also inside code whose exceptions
Python prints and drops ("Exception ignored in ...": ``os.register_at_fork`` callbacks such as logging's lock
release each time a process forks a child with a ``preexec_fn``, ``__del__`` finalizers, weakref callbacks).
A ``KeyboardInterrupt`` raised there never reaches the code that would stop the run: a ``faultlib run`` told
to stop by Kubernetes or CI runs on until the SIGKILL, and a regression's worker until its deadline.
:func:`resend_swallowed_stops` installs a ``sys.unraisablehook`` that sends such a stop again, so that the
next ``KeyboardInterrupt`` is raised in the code that was running (CPython: ``PyErr_WriteUnraisable``
calls ``sys.unraisablehook``; Python docs, "sys.unraisablehook").

:func:`interrupt` is what a handler calls; ``once=True`` raises only the first stop, for code whose finishing
must not be cut short by a second one (a worker told twice by a killed parent: its closed pipe, then
``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import os
import sys

#: the signal of the last stop raised and not seen swallowed; None before any stop
_raised: int | None = None
#: seconds before a swallowed stop is sent again: long enough for the hook that reported it to have returned
#: (a handler that ran inside the hook would be dropped too)
RESEND_AFTER_S = 0.05


def interrupt(signum: int, *, once: bool = False) -> None:
    """Raise ``KeyboardInterrupt`` for the stop ``signum``; with ``once``, only when no stop was raised
    before (later ones return: the first is being handled)."""
    global _raised
    if once and _raised is not None:
        return
    _raised = signum
    raise KeyboardInterrupt


def _resend_swallowed(unraisable) -> None:
    _previous_hook(unraisable)
    global _raised
    if unraisable.exc_type is KeyboardInterrupt and _raised is not None:
        signum, _raised = _raised, None
        import signal
        import threading

        threading.Timer(RESEND_AFTER_S, os.kill, (os.getpid(), signal.Signals(signum))).start()


_previous_hook = sys.__unraisablehook__


def resend_swallowed_stops() -> None:
    """Install the ``sys.unraisablehook`` that sends a stop Python swallowed again (the previous hook still
    prints it). Idempotent."""
    global _previous_hook
    if sys.unraisablehook is not _resend_swallowed:
        _previous_hook, sys.unraisablehook = sys.unraisablehook, _resend_swallowed
