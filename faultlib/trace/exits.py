"""How a traced child ended when it could not write its report (:mod:`faultlib.trace.children`): killed by a signal
(a DataLoader worker terminated at shutdown, the OOM killer), or gone through ``os._exit`` before its wrapper ran.

Two records, both files in the pass's children folder, read by :func:`faultlib.trace.family.read_children`:

* ``exit-<pid>.json`` (``{"pid", "code"}``): the status of a child its parent reaped through ``os.waitpid`` (what
  multiprocessing's ``join()`` and DataLoader's worker shutdown call) or a ``subprocess.Popen``'s ``poll()``/
  ``wait()`` (``poll()`` calls the ``os.waitpid`` bound at import: its ``_handle_exitstatus`` is wrapped, which both
  go through), as :func:`os.waitstatus_to_exitcode` gives it (a negative code: killed by that signal).
  :func:`record_waits` wraps both once in the traced process and in every armed child. A child never reaped (its
  parent exited first) is reaped by the session instead (:mod:`faultlib.trace.orphans`), or said to have outlived
  the script (``{"pid", "code": null, "running": true}``).
* ``progress`` in the child's own report: the steps its tracer had seen (``{"forwards", "optimizer_steps"}``),
  written at the end of its first optimizer step and then at most once a second (:class:`Progress`), so a child
  killed later says how far it got.
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any, Callable

from faultlib.trace.children import write_atomic

PROGRESS_EVERY_S = 1.0
"""A child's report is rewritten with its progress at most this often (a file write per second, not per step)."""

_waits_folder: str | None = None


def record_waits(folder: str) -> None:
    """From now on, every child this process reaps through ``os.waitpid`` leaves ``exit-<pid>.json`` in ``folder``
    (wrapped once per process; a fork inherits the wrapper and the folder)."""
    global _waits_folder
    first = _waits_folder is None
    _waits_folder = folder
    if not first:
        return
    original = os.waitpid

    def waitpid(pid, options, _original=original):
        reaped, status = _original(pid, options)
        if reaped > 0 and _waits_folder is not None:
            try:
                code = os.waitstatus_to_exitcode(status)
                write_atomic(os.path.join(_waits_folder, f"exit-{reaped}.json"),
                             json.dumps({"pid": reaped, "code": code}))
            except (OSError, ValueError):  # a stopped (not ended) child, or the folder is gone: nothing to say
                pass
        return reaped, status

    waitpid.__wrapped__ = original  # type: ignore[attr-defined]
    os.waitpid = waitpid
    _record_popen_exits()


def _write_exit(pid: int, code: int) -> None:
    if _waits_folder is not None:
        try:
            write_atomic(os.path.join(_waits_folder, f"exit-{pid}.json"), json.dumps({"pid": pid, "code": code}))
        except OSError:  # the session already ended (a child that outlived the traced script)
            pass


def _record_popen_exits() -> None:
    """``Popen._handle_exitstatus`` (every ``poll()``/``wait()`` that reaps ends there; also run from ``__del__``
    at interpreter exit: nothing here may raise) writes the child's exit record after setting ``returncode``."""
    import subprocess

    original = getattr(subprocess.Popen, "_handle_exitstatus", None)
    if original is None or getattr(original, "_faultlib_exits", False):
        return

    def _handle_exitstatus(popen, sts, *args, _original=original, _write=_write_exit, **kwargs):
        _original(popen, sts, *args, **kwargs)
        try:
            if isinstance(popen.returncode, int) and not os.WIFSTOPPED(sts):
                _write(popen.pid, popen.returncode)
        except Exception:  # noqa: BLE001 - the script's wait goes on whatever the record does
            pass

    _handle_exitstatus._faultlib_exits = True  # type: ignore[attr-defined]
    _handle_exitstatus.__wrapped__ = original  # type: ignore[attr-defined]
    subprocess.Popen._handle_exitstatus = _handle_exitstatus


def describe(code: int) -> str:
    """``killed by SIGKILL`` for a negative code, ``exit code 3`` otherwise."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class Progress:
    """A child's optimizer step post hook: its report with ``progress`` (see the module docstring).

    Args:
        save: writes the child's report (a dict) atomically.
        state: the report as it stands (``started``, ``argv``...): ``progress`` is added to a copy.
        tracer: the child's :class:`faultlib.trace.boot.Tracer` (``forwards``, ``opt_steps`` read).
    """

    def __init__(self, save: Callable[[dict[str, Any]], None], state: dict[str, Any], tracer: Any):
        self.save, self.state, self.tracer = save, state, tracer
        self.next_at = 0.0  # monotonic seconds: the first step end writes at once

    def __call__(self, *_args: Any) -> None:
        now = time.monotonic()
        if now < self.next_at:
            return
        self.next_at = now + PROGRESS_EVERY_S
        tracer = self.tracer
        self.save({**self.state, "progress": {"forwards": tracer.forwards, "optimizer_steps": tracer.opt_steps}})


OUTLIVED = "it was still running when the traced script ended (not waited for): how it ends is not known"


def outlived(exit_record: dict[str, Any] | None) -> bool:
    """Whether the session found the child still running after the traced script ended
    (:mod:`faultlib.trace.orphans`)."""
    return bool(exit_record and exit_record.get("running"))


def why_ended(report: dict[str, Any], exit_record: dict[str, Any] | None) -> str:
    """``why_not`` of a child that started but wrote no final report: how it ended if its parent (or the session)
    reaped it, or that it outlived the script, and the steps it had reported."""
    how = "killed, or os._exit"
    if exit_record is not None and isinstance(exit_record.get("code"), int):
        how = describe(exit_record["code"])
    said = OUTLIVED if outlived(exit_record) else f"it ended before its report was written ({how})"
    progress = report.get("progress")
    if isinstance(progress, dict):
        said += (f"; its last progress report: {progress.get('optimizer_steps', 0)} optimizer step(s), "
                 f"{progress.get('forwards', 0)} model call(s)")
    return said
