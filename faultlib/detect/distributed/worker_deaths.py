"""The main process's side of a dead DataLoader worker: SIGCHLD, ``waitid`` and PyTorch's own messages.

:class:`DeadWorkers` is the part of :class:`~faultlib.detect.distributed.workers.WorkerWatch` that finds a
worker of its own that was killed or exited: from a SIGCHLD handler (installed while the watch iterates), from an
error the loader raised (PyTorch's "exited unexpectedly", or a reset while fetching a batch its sender queued just
before it died), or from PyTorch's message in an exception raised outside the watch (:meth:`DeadWorkers.explain`).
The report names the index the worker was loading from its shared-memory slot.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import signal
import threading
import time
from typing import Any

from faultlib.detect.distributed.worker_report import (WorkerFault, WorkerFaultReport, describe_index,
                                                       likely_cause, summary)

# one slot per worker in shared memory: state, pid, index being loaded, batch size, then the batch's indices
_STATE, _PID, _INDEX, _NBATCH, _HEAD = 0, 1, 2, 3, 4
_IDLE, _FETCHING, _RAISED = 0, 1, 2
_NO_INDEX = -1
MAX_REPORTED_BATCH = 64
DEATH_WAIT_S = 1.0  # after an error from the loader, how long to wait for a dying worker to become waitable
#: after a reset or EOF while receiving a batch's tensors (PyTorch hands them over as file descriptors through
#: the sending worker's multiprocessing resource sharer: the sender died after it queued the batch), how long
#: to wait for that worker to become waitable: a loaded machine can keep a killed process from its exit's end
HANDOFF_WAIT_S = 10.0
#: PyTorch's messages for a dead worker: "(pid 42) is killed by signal: Killed." / "(pid(s) 42) exited unexpectedly"
_TORCH_DEAD = re.compile(r"DataLoader worker \(pid(?:\(s\))? ([\d, ]+)\) (?:is killed by signal: ([^.\n]+)"
                         r"|exited unexpectedly(?: with exit code (-?\d+))?)")


class DeadWorkers:
    """Finds and reports dead workers for :class:`~faultlib.detect.distributed.workers.WorkerWatch`, whose
    ``__init__`` sets the state used here (slots, processes, reports, the pending death)."""

    rank: int | None
    max_workers: int
    reports: list[WorkerFaultReport]
    dataset: Any
    _slots: Any
    _width: int
    _describe: Any
    _procs: dict[int, Any]
    _reported: set[int]
    _dead: WorkerFaultReport | None
    _in_next: bool
    _position: tuple[int, int]
    _oom_start: Any
    _previous: Any = None

    def _dead_after_error(self, exc: BaseException) -> WorkerFaultReport | None:
        """The watched worker whose death explains ``exc``, an error from the loader: polls
        :data:`DEATH_WAIT_S`, and up to :data:`HANDOFF_WAIT_S` when the connection to a batch's sender broke."""
        dead = self._dead or self._find_dead(wait_s=DEATH_WAIT_S)
        if dead is None and _handoff_broke(exc):
            dead = self._find_dead(wait_s=HANDOFF_WAIT_S - DEATH_WAIT_S)
        return dead

    def explain(self, exc: BaseException) -> WorkerFaultReport | None:
        """The report for PyTorch's dead-worker error raised outside :meth:`iterate` (a ``next(iter(loader))``
        peek at the batch size, an evaluation loop): the pid in PyTorch's message (``__cause__`` and
        ``__context__`` followed) finds the worker's shared-memory slot, which still holds the index it was
        loading. Appended to :attr:`reports`; also printed for an uncaught exception (``sys.excepthook``).

        Returns:
            The ``worker_killed`` / ``worker_exited`` report, or None when ``exc`` is not about a worker of this
            watch.
        """
        pids: list[int] = []
        signum = exit_code = None
        seen: set[int] = set()
        while exc is not None and id(exc) not in seen and len(seen) < 8:
            seen.add(id(exc))
            for m in _TORCH_DEAD.finditer(str(exc)):
                pids += [int(p) for p in re.findall(r"\d+", m.group(1))]
                if m.group(2):
                    signum = next((int(s) for s in signal.Signals if signal.strsignal(s) == m.group(2).strip()), signum)
                if m.group(3):
                    exit_code = int(m.group(3))
            exc = exc.__cause__ or exc.__context__
        for pid in pids:
            if signum is None and exit_code is None:  # "exited unexpectedly" alone: PyTorch reaped it; its Process knows
                code = next((c.exitcode for c in getattr(multiprocessing.process, "_children", ()) if c.pid == pid), None)
                signum, exit_code = (-code, None) if code is not None and code < 0 else (None, code)
            for wid in range(self.max_workers):
                if self._slots[wid * self._width + _PID] == pid:
                    said = f"DataLoader worker (pid {pid}) " + (f"is killed by signal: {signal.strsignal(signum)}."
                                                                if signum else "exited unexpectedly")
                    report = dataclasses.replace(self._dead_report(wid, pid, signum, None if signum else exit_code),
                                                 torch_message=said)
                    self.reports.append(report)
                    return report
        return None

    def _find_dead(self, wait_s: float = 0.0) -> WorkerFaultReport | None:
        """A watched worker that ended badly; polls up to ``wait_s`` seconds (a worker being killed closes
        its sockets, which the main process may see as an error, a moment before it becomes waitable)."""
        deadline = time.monotonic() + wait_s
        while True:
            found = self._find_dead_once()
            if found is not None or time.monotonic() >= deadline:
                return found
            time.sleep(0.02)

    def _find_dead_once(self, include_reported: bool = False) -> WorkerFaultReport | None:
        for wid, proc in self._procs.items():
            if proc.pid in self._reported and not include_reported:
                continue
            try:
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # already reaped (by PyTorch's is_alive): the Process knows its end
                code = proc.exitcode
                if code and include_reported:
                    return True  # type: ignore[return-value]
                if code:
                    return self._dead_report(wid, proc.pid, -code if code < 0 else None, code if code > 0 else None)
                continue
            if info is None or (info.si_code == os.CLD_EXITED and info.si_status == 0):
                continue
            if include_reported:
                return True  # type: ignore[return-value]
            killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            return self._dead_report(wid, proc.pid, info.si_status if killed else None,
                                     None if killed else info.si_status)
        return None

    def _dead_report(self, wid: int, pid: int, signum: int | None, exit_code: int | None) -> WorkerFaultReport:
        self._reported.add(pid)
        base = wid * self._width
        slots = self._slots
        busy = slots[base + _STATE] == _FETCHING and slots[base + _PID] == pid
        index = slots[base + _INDEX] if busy and slots[base + _INDEX] != _NO_INDEX else None
        nbatch = slots[base + _NBATCH] if busy else 0
        batch = list(slots[base + _HEAD:base + _HEAD + min(nbatch, self._width - _HEAD, MAX_REPORTED_BATCH)])
        sample = None
        if index is not None:
            sample = summary(self._describe(index)) if self._describe else describe_index(self.dataset.inner, index)
        name = signal.Signals(signum).name if signum else None
        torch_message = (f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(signum)}."
                         if signum else f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {exit_code}.")
        return WorkerFaultReport(  # batch_number None: a worker dies on a prefetched batch, not the awaited one
            kind="worker_killed" if signum else "worker_exited", rank=self.rank, worker_id=wid, pid=pid,
            index=index, batch=batch, batch_size=int(nbatch), epoch=self._position[0], batch_number=None,
            sample=sample, signal=name, exit_code=exit_code, cause=likely_cause(signum, exit_code, pid, self._oom_start),
            torch_message=torch_message)

    def _on_sigchld(self, signum: int, frame: Any) -> None:
        dead = self._find_dead() if self._dead is None else self._dead
        if dead is None:
            # PyTorch's handler would raise its own message for a worker of ours already reported
            if callable(self._previous) and not self._find_dead_once(include_reported=True):
                self._previous(signum, frame)
            return
        self._dead = dead
        if self._in_next:  # surface it from next(), where iterate handles it; else at the next batch
            self._dead = None
            raise WorkerFault(dead)

    def _install_handler(self) -> None:
        if threading.current_thread() is not threading.main_thread() or not self._procs:
            return
        current = signal.getsignal(signal.SIGCHLD)
        if current != self._on_sigchld:  # bound methods compare equal, never identical
            self._previous = current
            signal.signal(signal.SIGCHLD, self._on_sigchld)

    def _restore_handler(self) -> None:
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGCHLD) == self._on_sigchld:
            signal.signal(signal.SIGCHLD, self._previous)



def _handoff_broke(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is the connection to a batch's sender breaking: a
    ``ConnectionError`` or ``EOFError`` while PyTorch rebuilds a tensor shared by file descriptor
    (``torch.multiprocessing.reductions.rebuild_storage_fd``), which happens when the worker that queued
    the batch is killed before the main process fetched its descriptors."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, (ConnectionError, EOFError)):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
