"""Running one subprocess so that nothing it started outlives it: :func:`run_process`, :func:`kill_group`.

:func:`run_process` makes the caller a child subreaper, starts the process in its own session with
``PR_SET_PDEATHSIG`` (it dies with its parent), polls it, and when it ends (normal exit, timeout, crash,
Ctrl-C) kills every process it became (:class:`~faultlib.processes.tree.ProcessTree`), including children
that left its session. Used by the local backend for repro phases and by the observability room for
Prometheus and promtool.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from faultlib.processes.tree import ProcessTree, become_subreaper, pdeathsig_preexec

POLL_S = 0.2
TERM_GRACE_S = 3.0


@dataclass(frozen=True)
class ProcessOutcome:
    """How a subprocess ended: ``exit_code`` is None when it was killed at its timeout."""

    exit_code: int | None
    timed_out: bool
    duration_s: float


def kill_group(proc: subprocess.Popen, grace_s: float | None = None) -> None:
    """SIGTERM ``proc``'s group and every descendant of it, then SIGKILL what is left after
    ``grace_s`` seconds (default :data:`TERM_GRACE_S`); a Ctrl-C while waiting kills at once."""
    tree = ProcessTree()
    tree.started(proc.pid)
    try:
        tree.terminate(TERM_GRACE_S if grace_s is None else grace_s, leader_done=lambda: proc.poll() is not None)
    finally:
        tree.close()


def run_process(argv: list[str], *, env: dict[str, str], cwd: Path, stdout, stderr, timeout_s: float,
                on_poll: Callable[[], None] | None = None) -> ProcessOutcome:
    """Run ``argv`` in a new session, polling every 0.2 s; when it ends, leave nothing behind.

    The child gets ``PR_SET_PDEATHSIG`` = SIGKILL (it dies if this process dies; call this from a
    thread that lives until it returns, which it guarantees by waiting in the calling thread). At
    ``timeout_s`` seconds, on an exception in ``on_poll`` or a ``KeyboardInterrupt`` (Ctrl-C), the
    whole tree gets SIGTERM, then SIGKILL after :data:`TERM_GRACE_S` seconds (at once on a second
    Ctrl-C). After a normal exit, whatever the process left running is killed with SIGKILL.

    Args:
        argv: the command, no shell.
        env: its whole environment (plus ``FAULTLIB_PROCESS_TREE``, the tree's token).
        cwd: its working directory.
        stdout, stderr: open files (or ``subprocess`` constants) for its output.
        timeout_s: the budget in seconds.
        on_poll: called every 0.2 s while it runs, and once after it ended.

    Returns:
        exit code (negative: killed by that signal; None: killed at the timeout), timed out, duration in seconds.

    Raises:
        KeyboardInterrupt: re-raised after the tree was killed.
        OSError: the command could not be started.
    """
    started = time.monotonic()
    become_subreaper()  # orphans below us come back to us, so they can be found and killed
    tree = ProcessTree()
    proc = subprocess.Popen(argv, env={**env, **tree.env}, cwd=cwd, stdout=stdout, stderr=stderr,
                            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=pdeathsig_preexec())
    tree.started(proc.pid)
    done = lambda: proc.poll() is not None  # noqa: E731 (also reaps the leader)
    try:
        try:
            while True:
                try:
                    code = proc.wait(timeout=POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    if on_poll:
                        on_poll()
                    if time.monotonic() - started > timeout_s:
                        tree.terminate(TERM_GRACE_S, leader_done=done)
                        proc.wait()
                        return ProcessOutcome(None, True, time.monotonic() - started)
        except BaseException:
            tree.terminate(TERM_GRACE_S, leader_done=done)  # Ctrl-C or an error in the runner: no orphan
            raise
        tree.kill(leader_done=done)  # the leader exited: kill what it left, wherever it went
    finally:
        tree.close()
    if on_poll:
        on_poll()
    return ProcessOutcome(code, False, time.monotonic() - started)


def repro_environment() -> dict[str, str]:
    """This process's environment without the archive's credentials, for repro and suite subprocesses
    (:mod:`faultlib.archive.credentials`): a repro printing its environment must not copy them into
    stdout.txt."""
    from faultlib.archive.credentials import without_secrets

    return without_secrets(os.environ)
