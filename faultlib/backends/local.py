"""The local backend: each phase of the repro runs as a subprocess in its own process
group (session), killed whole on timeout; faults come from in-process shims.

No shell is involved: argv is ``[sys.executable, <case dir>/<repro.script>]``, and the case
file can only name a ``*.py`` file inside the case directory (enforced by the schema).

No process outlives its phase (:mod:`faultlib.processes`): :func:`~faultlib.processes.run_process` makes the
runner a child subreaper, starts the process with ``PR_SET_PDEATHSIG`` (it dies with the runner),
and when the phase ends (normal exit, timeout, crash, Ctrl-C) kills every process it became,
including children that left its session (``setsid``, ``start_new_session``, a double fork).
The runner's own files in the run directory (``stdout.txt``, ``stderr.txt``) are opened without
following a symlink or blocking on a FIFO a repro may have put there
(:func:`faultlib.evidence.seal.open_append`), and ``traces.jsonl`` is followed the same way, a
bounded number of bytes per poll.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from faultlib.backends.base import Backend
from faultlib.processes import ProcessOutcome, repro_environment, run_process
from faultlib.cases.model import signal_name
from faultlib.errors import InputError
from faultlib.evidence import layout
from faultlib.evidence.seal import open_append
from faultlib.readers import load_json

if TYPE_CHECKING:
    from faultlib.cases import World

TAIL_MAX_BYTES = 8 << 20  # the most of traces.jsonl read per poll; the rest waits for the next poll
TAIL_LINE_MAX_BYTES = 4 << 20  # a longer partial line is dropped (step spans are a few hundred bytes)


class StepTail:
    """Follows ``traces.jsonl`` while a phase runs and reports each finished step span.

    The file is opened without following a symlink and without blocking on a FIFO; at most
    :data:`TAIL_MAX_BYTES` are read per poll; lines that do not parse or lack the expected shape
    are ignored (the runner reports them when it reads the evidence at the end).
    """

    def __init__(self, path: Path, phase: str, on_step: Callable[[int, int | None], None]):
        self.path = path
        self.phase = phase
        self.on_step = on_step
        self.offset, self.inode = 0, None
        self._partial = b""
        info = self._stat()
        if info is not None:
            self.offset, self.inode = info.st_size, info.st_ino

    def _stat(self) -> os.stat_result | None:
        try:
            info = os.lstat(self.path)
        except OSError:
            return None
        return info if stat.S_ISREG(info.st_mode) else None

    def _read(self) -> bytes:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return b""
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return b""
            if info.st_ino != self.inode or info.st_size < self.offset:  # replaced or truncated: start over
                self.inode, self.offset, self._partial = info.st_ino, 0, b""
            chunk = os.pread(fd, TAIL_MAX_BYTES, self.offset)
        except OSError:
            return b""
        finally:
            os.close(fd)
        self.offset += len(chunk)
        return chunk

    def poll(self) -> None:
        chunk = self._read()
        if not chunk:
            return
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > TAIL_LINE_MAX_BYTES:
            self._partial = b""
        last = None
        for line in lines:
            if b'"faultlib.step"' not in line or len(line) > TAIL_LINE_MAX_BYTES:
                continue
            try:
                spans = load_json(line, self.path)["resourceSpans"][0]["scopeSpans"][0]["spans"]
                for span in spans:
                    attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
                    if "faultlib.step" in attrs:
                        total = attrs.get("faultlib.steps_total", {}).get("intValue")
                        last = (int(attrs["faultlib.step"]["intValue"]), int(total) if total else None)
            except (InputError, KeyError, IndexError, TypeError, ValueError, AttributeError):
                continue
        if last is not None:
            self.on_step(*last)


class LocalBackend(Backend):
    """Runs phases as local subprocesses."""

    name = "local"

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None], world: "World | None" = None) -> ProcessOutcome:
        """Run one phase; stdout/stderr are appended to the run's ``stdout.txt``/``stderr.txt``
        after a ``# faultlib phase=NAME`` header (``# faultlib phase=NAME attempt=N`` for the
        restarts of a phase, N >= 2), streamed so a killed phase keeps its output.

        A distributed case (``world``) starts every rank at once through ``torchrun --standalone``
        (:meth:`~faultlib.cases.World.launcher_argv`); the ranks are the launcher's children, in the
        phase's process tree, so every rank is killed when the phase ends or times out."""
        from faultlib.repro import ENV_ATTEMPT

        full_env = {**repro_environment(), **env, "PYTHONUNBUFFERED": "1"}
        tail = StepTail(run_dir / layout.TRACES, phase, on_step)
        attempt = env.get(ENV_ATTEMPT, "1")
        header = f"# faultlib phase={phase}" + (f" attempt={attempt}" if attempt != "1" else "")
        with open_append(run_dir, layout.STDOUT) as out, open_append(run_dir, layout.STDERR) as err:
            for fh in (out, err):
                fh.write(f"{header}\n".encode())
                fh.flush()
            argv = world.launcher_argv(sys.executable, str(script)) if world else [sys.executable, str(script)]
            if world:
                full_env.setdefault("OMP_NUM_THREADS", "1")  # torchrun's default too; said here, not warned
            outcome = run_process(argv, env=full_env, cwd=script.parent,
                                  stdout=out, stderr=err, timeout_s=timeout_s, on_poll=tail.poll)
            if outcome.timed_out:
                note = f"# faultlib: phase {phase} killed after {timeout_s:g} s (repro.timeout_s)\n"
            elif outcome.exit_code is not None and outcome.exit_code < 0:
                note = (f"# faultlib: phase {phase} killed by {signal_name(outcome.exit_code)} "
                        f"(exit code {outcome.exit_code})\n")
            else:
                note = f"# faultlib: phase {phase} exit code {outcome.exit_code}\n"
            err.write(note.encode())
        return outcome
