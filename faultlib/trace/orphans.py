"""Children the traced script never reaped (:mod:`faultlib.trace.exits` records those it did): the session's side.

A child whose parent exits first is re-parented. While a pass runs, the session's own process is the traced
process's *child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``, :func:`adopt`): such an orphan becomes the
session's child instead of init's, so when the traced script has ended :func:`reap` can collect the status of each
child the pass's folder names (a ``launch-<pid>.json`` or ``child-<pid>.json``) with ``os.waitpid(pid, WNOHANG)``
and write it as ``exit-<pid>.json``, as a reaping parent would have. Only those pids are waited for: a process of
the session's own (another ``Popen``) is never reaped here.

A named child that is still running once the traced script ended and :data:`GRACE_S` passed is recorded as
``{"pid", "code": null, "running": true}``: its row says it outlived the script, and that its end is not known
(the session does not wait for it; it runs on). Where no subreaper can be set (not Linux) an orphan's exit code
is not known and its row says so.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from faultlib.trace.children import write_atomic

GRACE_S = 1.0
"""How long the session waits, once the traced script ended, for named children still running to end."""

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def adopt(on: bool = True) -> bool:
    """Make the session's process the subreaper of its descendants (``on``), or stop being it. Returns whether
    the kernel took it (False off Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _named(folder: Path) -> set[int]:
    pids = set()
    for path in [*folder.glob("launch-*.json"), *folder.glob("child-*.json")]:
        stem = path.name.split("-", 1)[1][:-5]
        if stem.isdigit():
            pids.add(int(stem))
    return pids


def _reap_one(pid: int) -> int | None | bool:
    """The exit code of ``pid`` if it had ended (reaped now), None while it runs, False if it is not the session's
    child (reaped by its parent, or never re-parented here)."""
    try:
        reaped, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    if reaped != pid:
        return None
    try:
        return os.waitstatus_to_exitcode(status)
    except ValueError:  # stopped, not ended
        return None


def reap(folder: Path, adopted: bool, grace_s: float = GRACE_S) -> None:
    """After the traced script ended: write ``exit-<pid>.json`` for each child the pass's folder names that has no
    such record yet (see the module docstring)."""
    if not folder.is_dir():
        return
    pending = {pid for pid in _named(folder) if not (folder / f"exit-{pid}.json").exists()}
    deadline = time.monotonic() + grace_s
    running: set[int] = set()
    while pending:
        running = set()
        for pid in sorted(pending):
            code = _reap_one(pid) if adopted else False
            if code is False:
                if _alive(pid):
                    running.add(pid)
                continue
            if code is None:
                running.add(pid)
                continue
            write_atomic(str(folder / f"exit-{pid}.json"), json.dumps({"pid": pid, "code": code}))
        pending = running
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    for pid in running:
        write_atomic(str(folder / f"exit-{pid}.json"), json.dumps({"pid": pid, "code": None, "running": True}))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
