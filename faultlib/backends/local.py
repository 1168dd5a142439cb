"""The local backend: each phase of the repro runs as a subprocess in its own process
group (session), killed whole on timeout; faults come from in-process shims.

No shell is involved: argv is ``[sys.executable, <case dir>/<repro.script>]``, and the case
file can only name a ``*.py`` file inside the case directory (enforced by the schema).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from faultlib.backends.base import Backend
from faultlib.cases.model import signal_name
from faultlib.evidence import layout

POLL_S = 0.2
TERM_GRACE_S = 3.0


@dataclass(frozen=True)
class ProcessOutcome:
    """How a subprocess ended: ``exit_code`` is None when it was killed at its timeout."""

    exit_code: int | None
    timed_out: bool
    duration_s: float


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL it after a grace period."""
    for sig, grace in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def run_process(argv: list[str], *, env: dict[str, str], cwd: Path, stdout, stderr, timeout_s: float,
                on_poll: Callable[[], None] | None = None) -> ProcessOutcome:
    """Run ``argv`` in a new session, polling every 0.2 s; kill the whole group at ``timeout_s``."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        while True:
            try:
                code = proc.wait(timeout=POLL_S)
                break
            except subprocess.TimeoutExpired:
                if on_poll:
                    on_poll()
                if time.monotonic() - started > timeout_s:
                    kill_group(proc)
                    return ProcessOutcome(None, True, time.monotonic() - started)
    except BaseException:
        kill_group(proc)  # Ctrl-C or an error in the runner: leave no orphan behind
        raise
    # the leader exited: reap anything it left in its group
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if on_poll:
        on_poll()
    return ProcessOutcome(code, False, time.monotonic() - started)


def repro_environment() -> dict[str, str]:
    """This process's environment without the archive's credentials, for repro and suite subprocesses
    (:mod:`faultlib.archive.credentials`): a repro printing its environment must not copy them into
    stdout.txt."""
    from faultlib.archive.credentials import without_secrets

    return without_secrets(os.environ)


class StepTail:
    """Follows ``traces.jsonl`` while a phase runs and reports each finished step span."""

    def __init__(self, path: Path, phase: str, on_step: Callable[[int, int | None], None]):
        self.path = path
        self.phase = phase
        self.on_step = on_step
        self.offset = path.stat().st_size if path.exists() else 0
        self._partial = b""

    def poll(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        self.offset += len(chunk)
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        last = None
        for line in lines:
            if b'"faultlib.step"' not in line:
                continue
            try:
                spans = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
            except (ValueError, KeyError, IndexError):
                continue
            for span in spans:
                attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
                if "faultlib.step" in attrs:
                    total = attrs.get("faultlib.steps_total", {}).get("intValue")
                    last = (int(attrs["faultlib.step"]["intValue"]), int(total) if total else None)
        if last is not None:
            self.on_step(*last)


class LocalBackend(Backend):
    """Runs phases as local subprocesses."""

    name = "local"

    def run_phase(self, *, script: Path, run_dir: Path, phase: str, env: dict[str, str], timeout_s: float,
                  on_step: Callable[[int, int | None], None]) -> ProcessOutcome:
        """Run one phase; stdout/stderr are appended to the run's ``stdout.txt``/``stderr.txt``
        after a ``# faultlib phase=NAME`` header (``# faultlib phase=NAME attempt=N`` for the
        restarts of a phase, N >= 2), streamed so a killed phase keeps its output."""
        from faultlib.repro import ENV_ATTEMPT

        full_env = {**repro_environment(), **env, "PYTHONUNBUFFERED": "1"}
        tail = StepTail(run_dir / layout.TRACES, phase, on_step)
        attempt = env.get(ENV_ATTEMPT, "1")
        header = f"# faultlib phase={phase}" + (f" attempt={attempt}" if attempt != "1" else "")
        with open(run_dir / layout.STDOUT, "ab") as out, open(run_dir / layout.STDERR, "ab") as err:
            for fh in (out, err):
                fh.write(f"{header}\n".encode())
                fh.flush()
            outcome = run_process([sys.executable, str(script)], env=full_env, cwd=script.parent,
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
