"""The archive's credentials, kept where a repro cannot read them.

A repro runs as a descendant of the runner, and on Linux any process of the same user can read
``/proc/<pid>/environ`` of the processes it can see: the runner's environment block is readable
from the repro, and ``os.environ.pop`` does not help (``/proc/<pid>/environ`` shows the block the
process was started with, not the live environment). So the CLI, when it finds the credentials in
its environment, moves them out before it does anything else:

1. it writes them into a pipe and re-executes itself (same PID, same argv) with an environment
   that no longer holds them, passing only the pipe's file descriptor (``FAULTLIB_CREDENTIALS_FD``);
2. the new image reads the pipe, closes it, and keeps the values in this module's memory;
3. it marks itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``), so that other processes of the same
   user cannot read its memory through ``/proc/<pid>/mem`` or ptrace.

What this does not protect against: code running as root (``CAP_SYS_PTRACE`` reads any process),
and code of the same user started outside faultlib before the run (it can read the environment of
the shell that exported the keys). Run untrusted repros in a container or on Kubernetes, where the
runner is not in the repro's PID namespace (README, "What the local backend protects").
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping

SECRET_NAMES = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "FAULTLIB_S3_ENDPOINT")
ENV_FD = "FAULTLIB_CREDENTIALS_FD"
PR_SET_DUMPABLE = 4

_held: dict[str, str] = {}


def environ() -> Mapping[str, str]:
    """``os.environ`` plus the credentials held in memory (which win): what the S3 client reads."""
    return {**os.environ, **_held}


def without_secrets(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without the archive's credentials: the environment of every repro and suite subprocess."""
    return {k: v for k, v in env.items() if k not in SECRET_NAMES and k != ENV_FD}


def _undumpable() -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: nothing more this process can do
        pass


def _take_from_fd() -> None:
    fd = int(os.environ.pop(ENV_FD))
    try:
        with os.fdopen(fd, "rb") as pipe:
            _held.update(json.loads(pipe.read()))
    except (OSError, ValueError):
        pass


def secure_process(argv: list[str] | None = None) -> None:
    """Move the credentials out of this process's environment block (see the module docstring).

    Call first thing in the CLI. Without credentials in the environment it only marks the process
    non-dumpable when it holds some already. ``argv`` is the command line to re-execute (default
    ``sys.orig_argv``); re-execution happens at most once.
    """
    if ENV_FD in os.environ:  # the re-executed image: take the values, forget the descriptor
        _take_from_fd()
        _undumpable()
        return
    found = {k: os.environ[k] for k in SECRET_NAMES if os.environ.get(k)}
    if not found or not sys.platform.startswith("linux"):
        _held.update(found)
        return
    read_fd, write_fd = os.pipe()
    payload = json.dumps(found).encode()
    if len(payload) > 60_000:  # would not fit the pipe buffer: keep them in memory, unprotected
        os.close(read_fd)
        os.close(write_fd)
        _held.update(found)
        return
    os.write(write_fd, payload)
    os.close(write_fd)
    os.set_inheritable(read_fd, True)
    env = without_secrets(os.environ)
    env[ENV_FD] = str(read_fd)
    argv = list(argv or sys.orig_argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *argv[1:]], env)
