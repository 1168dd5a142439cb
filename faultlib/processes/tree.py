"""Process trees on Linux: every process a phase started dies when the phase ends.

A repro runs in its own session, but its children can leave that session (``setsid``,
``subprocess.Popen(..., start_new_session=True)``, a double fork), so killing the process group
is not enough. This module finds them all:

- the runner makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux >= 3.4):
  an orphan anywhere below it is re-parented to the runner instead of to init, so it stays
  findable;
- :class:`ProcessTree` tracks one started process: its descendants (walking ``/proc``, parent
  links) plus every orphan re-parented to the runner during the phase that belongs to it (it
  carries the tree's token in its environment, or shares the leader's session or group; an
  orphan with no token is attributed to the tree when it is the only one running in this process);
- :meth:`ProcessTree.terminate` sends SIGTERM to all of them, waits a grace period, then SIGSTOPs
  and SIGKILLs every one that is left, rescanning until none is, and reaps the orphans it adopted.
  A ``KeyboardInterrupt`` (a second Ctrl-C, or SIGTERM/SIGHUP mapped to it by the CLI) during
  the grace period escalates to SIGKILL at once; the interrupt is re-raised after the kill.

The started process also gets ``PR_SET_PDEATHSIG`` = SIGKILL (:func:`pdeathsig_preexec`): if the
runner is killed (``kill -9``), the kernel kills the repro. Linux sends that signal when the
*thread* that forked the child exits, so the thread that starts a process must outlive it;
:func:`faultlib.processes.run_process` waits in the thread that started the child, which
guarantees it. The death signal is not inherited by the repro's own children: those die by
:meth:`ProcessTree.terminate` while the runner lives, and by
:func:`faultlib.runlock.finish_interrupted` (which kills whatever still names the run directory)
after it died.

Everything here reads ``/proc``: a few milliseconds per scan on a machine with a few hundred
processes. On platforms without ``/proc`` or ``prctl`` the functions do nothing and return empty
results, and only the process group is killed.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
ENV_TREE = "FAULTLIB_PROCESS_TREE"
SCAN_INTERVAL_S = 0.05
KILL_DEADLINE_S = 10.0

_lock = threading.Lock()
_active: dict[str, "ProcessTree"] = {}  # token -> tree, every tree whose leader runs now
_prctl = None


def _libc_prctl():
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        import ctypes

        try:
            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl or None


@dataclass(frozen=True)
class ProcInfo:
    """One line of ``/proc/PID/stat``: ``start_time`` in clock ticks after boot (field 22), ``state``
    one letter (``Z`` zombie, ``X`` dead)."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start_time: int

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")


def proc_info(pid: int) -> ProcInfo | None:
    """``/proc/PID/stat`` parsed, or None when there is no such process (or no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        fields = data[data.rindex(b")") + 2:].split()  # the name in parentheses may hold spaces
        return ProcInfo(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19]))
    except (ValueError, IndexError):
        return None


def start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks after boot (``/proc/PID/stat`` field 22), or None."""
    info = proc_info(pid)
    return info.start_time if info else None


def is_alive(pid: int, started: int | None = None) -> bool:
    """True when ``pid`` runs (not a zombie) and, if ``started`` is given, started at that tick
    (so a recycled PID is not mistaken for the process)."""
    info = proc_info(pid)
    return bool(info and info.alive and (started is None or info.start_time == started))


def process_table() -> dict[int, ProcInfo]:
    """Every process visible in ``/proc``, by PID."""
    table: dict[int, ProcInfo] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if name.isdigit():
            info = proc_info(int(name))
            if info is not None:
                table[info.pid] = info
    return table


def descendants(roots: Iterable[int], table: dict[int, ProcInfo] | None = None) -> list[ProcInfo]:
    """Every process below ``roots`` (not the roots themselves), following parent links."""
    table = process_table() if table is None else table
    children: dict[int, list[ProcInfo]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info)
    out, stack, seen = [], list(roots), set(roots)
    while stack:
        for child in children.get(stack.pop(), []):
            if child.pid not in seen:
                seen.add(child.pid)
                out.append(child)
                stack.append(child.pid)
    return out


def _has_children_lists() -> bool:
    """Does the kernel keep per-thread children lists (``/proc/PID/task/TID/children``)?"""
    return os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _child_pids(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (none when it ended while we read)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                found.extend(int(child) for child in fh.read().split())
        except OSError:  # the thread ended
            continue
    return found


def descendants_of(roots: Iterable[int]) -> list[ProcInfo]:
    """What :func:`descendants` finds (zombies and orphans re-parented to a subreaper among the roots
    included), read from the kernel's per-thread children lists: ``/proc/PID/task/TID/children`` of
    the roots and of each process found below them (Linux >= 3.5, ``CONFIG_PROC_CHILDREN``; "proc"
    in the kernel's filesystems documentation), and ``/proc/PID/stat`` of the processes found only.
    That reads the tree, not every process on the machine: about 0.1 ms for a few children against
    about 13 ms for :func:`process_table` with 120 processes on a shared 2-core machine, where a
    check runs before and after each of thousands of tests. Like any walk of ``/proc`` it is a
    snapshot: a process forked while the lists are read may be missed. Where the kernel keeps no
    children lists, :func:`descendants` (every process's parent link)."""
    if not _has_children_lists():
        return descendants(roots)
    out, stack, seen = [], list(roots), set(roots)
    while stack:
        for pid in _child_pids(stack.pop()):
            if pid in seen:
                continue
            seen.add(pid)
            info = proc_info(pid)
            if info is not None:
                out.append(info)
                stack.append(pid)
    return out


def cmdline(pid: int) -> str:
    """The command line of ``pid`` (arguments joined by spaces), or ``[name]`` for a kernel thread or
    zombie, or ``?`` when it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            args = fh.read().rstrip(b"\0").split(b"\0")
        if args != [b""]:
            return " ".join(os.fsdecode(a) for a in args)
        with open(f"/proc/{pid}/comm", "rb") as fh:
            return f"[{os.fsdecode(fh.read().strip())}]"
    except OSError:
        return "?"


def environ_of(pid: int) -> dict[str, str] | None:
    """The environment ``pid`` started with (``/proc/PID/environ``, at most 1 MiB), or None when it
    cannot be read (gone, or another user's)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            data = fh.read(1 << 20)
    except OSError:
        return None
    out = {}
    for entry in data.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep:
            out[os.fsdecode(name)] = os.fsdecode(value)
    return out


def become_subreaper() -> bool:
    """Make this process a child subreaper (orphans below it are re-parented to it). Idempotent;
    False where Linux's ``prctl`` is not available."""
    prctl = _libc_prctl()
    return bool(prctl) and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def pdeathsig_preexec(parent: int | None = None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGKILL when the thread that forked it exits
    (``PR_SET_PDEATHSIG``), and kills the child at once if its parent already died before the call
    (the race the man page describes). None where ``prctl`` is not available."""
    prctl = _libc_prctl()
    if not prctl:
        return None
    parent = os.getpid() if parent is None else parent

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _send(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class ProcessTree:
    """One started process and everything it became; see the module docstring.

    Usage::

        tree = ProcessTree()                         # before the start: snapshot of our children
        proc = subprocess.Popen(..., env={**env, **tree.env}, start_new_session=True,
                                preexec_fn=pdeathsig_preexec())
        tree.started(proc.pid)
        ...
        tree.terminate(3.0, leader_done=lambda: proc.poll() is not None)  # or tree.kill(...) after it exited
        tree.close()

    Creating the tree snapshots this process's children: those are never counted as the tree's.
    """

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.env = {ENV_TREE: self.token}
        self.me = os.getpid()
        self.leader: int | None = None
        self.leader_start: int | None = None
        self.before = {(p.pid, p.start_time) for p in process_table().values() if p.ppid == self.me}
        self.adopted: set[tuple[int, int]] = set()

    def started(self, pid: int) -> None:
        """Register the leader (the process just started, its own session leader)."""
        self.leader = pid
        self.leader_start = start_time(pid)
        with _lock:
            _active[self.token] = self

    def close(self) -> None:
        """Stop tracking (after :meth:`terminate` or :meth:`kill`)."""
        with _lock:
            _active.pop(self.token, None)

    def _ours(self, info: ProcInfo) -> bool:
        """Is an orphan re-parented to this process part of this tree?"""
        if self.leader is not None and self.leader in (info.sid, info.pgid):
            return True
        token = (environ_of(info.pid) or {}).get(ENV_TREE)
        if token:
            return token == self.token
        with _lock:
            others = [t for t in _active.values() if t is not self]
        return not others  # no token to go by: ours when no other tree runs in this process

    def members(self) -> list[ProcInfo]:
        """The leader's descendants and the orphans of this tree (zombies included), never the leader."""
        table = process_table()
        with _lock:
            leaders = {t.leader for t in _active.values()}
        leader = table.get(self.leader) if self.leader is not None else None
        roots = [self.leader] if leader is not None and leader.start_time == self.leader_start else []
        for info in table.values():
            if info.ppid != self.me or info.pid in leaders or (info.pid, info.start_time) in self.before:
                continue
            if (info.pid, info.start_time) in self.adopted or self._ours(info):
                self.adopted.add((info.pid, info.start_time))
                roots.append(info.pid)
        members = [table[pid] for pid in roots if pid in table and pid != self.leader]
        return members + descendants(roots, table)

    def _signal(self, sig: int, leader_done: Callable[[], bool] | None) -> list[ProcInfo]:
        """Send ``sig`` to every live member, and to the leader and its group while the leader is not
        reaped (after that its PID and group id may belong to someone else)."""
        alive = [m for m in self.members() if m.alive]
        if self._leader_alive(leader_done):
            if leader_done is not None:  # not reaped yet: the group id is still the leader's
                try:
                    os.killpg(self.leader, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            _send(self.leader, sig)
        for info in alive:
            _send(info.pid, sig)
        return alive

    def reap(self) -> None:
        """Collect the exit status of adopted orphans that ended (never the leader: its Popen does)."""
        for pid, started in list(self.adopted):
            info = proc_info(pid)
            if info is not None and info.start_time != started:  # gone, and the PID was used again
                self.adopted.discard((pid, started))
                continue
            if info is not None and info.alive:
                continue
            if info is not None and info.ppid == self.me:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            if proc_info(pid) is None:
                self.adopted.discard((pid, started))

    def _leader_alive(self, leader_done: Callable[[], bool] | None) -> bool:
        if self.leader is None:
            return False
        if leader_done is not None:
            return not leader_done()
        return is_alive(self.leader, self.leader_start)

    def kill(self, leader_done: Callable[[], bool] | None = None, deadline_s: float = KILL_DEADLINE_S) -> None:
        """SIGSTOP then SIGKILL every member and the leader's group, rescanning until none is alive
        (or ``deadline_s`` seconds passed); reap the adopted orphans. A ``KeyboardInterrupt`` while
        it works does not stop it; it is re-raised at the end.

        Args:
            leader_done: returns True once the leader exited (e.g. ``lambda: proc.poll() is not None``,
                which also reaps it); default: read ``/proc``.
        """
        interrupted = False
        end = time.monotonic() + deadline_s
        while True:
            try:
                self._signal(signal.SIGSTOP, leader_done)  # frozen processes cannot fork while we kill them
                left = self._signal(signal.SIGKILL, leader_done)
                self.reap()
                if (not left and not self._leader_alive(leader_done)) or time.monotonic() > end:
                    break
                time.sleep(0.01)
            except KeyboardInterrupt:
                interrupted = True
        if interrupted:
            raise KeyboardInterrupt

    def terminate(self, grace_s: float, leader_done: Callable[[], bool] | None = None) -> None:
        """SIGTERM the leader's group and every member, wait up to ``grace_s`` seconds for all of them
        to exit, then :meth:`kill` what is left. A ``KeyboardInterrupt`` during the wait escalates to
        the kill at once and is re-raised after it."""
        interrupted = False
        try:
            self._signal(signal.SIGTERM, leader_done)
            end = time.monotonic() + grace_s
            while time.monotonic() < end:
                if not self._leader_alive(leader_done) and not any(m.alive for m in self.members()):
                    break
                time.sleep(SCAN_INTERVAL_S)
        except KeyboardInterrupt:
            interrupted = True
        try:
            self.kill(leader_done)
        except KeyboardInterrupt:
            interrupted = True
        if interrupted:
            raise KeyboardInterrupt


def kill_matching(predicate: Callable[[int], bool], *, exclude: Iterable[int] = ()) -> list[int]:
    """SIGKILL every live process (not this one, nor ``exclude``) for which ``predicate(pid)`` is
    true, and its descendants; returns the PIDs signalled. Used to stop what a dead runner left."""
    table = process_table()
    skip = {os.getpid(), *exclude}
    roots = [p.pid for p in table.values() if p.alive and p.pid not in skip and predicate(p.pid)]
    victims = roots + [d.pid for d in descendants(roots, table) if d.alive and d.pid not in skip]
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        for pid in victims:
            _send(pid, sig)
    return victims
