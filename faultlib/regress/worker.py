"""One case of a regression, in its own process: ``python -m faultlib.regress.worker SPEC``.

:mod:`faultlib.regress.pool` starts one worker per case. The worker drives its own
:class:`~faultlib.runner.Runner` and writes the run's lifecycle events, then one ``result``
message, as JSON lines to the file descriptor the spec names (never to stdout: a library printing
there cannot corrupt the stream). A process per case keeps parallel runs apart (each has its own
runner, archive client and process tree) and makes every run stoppable on its own: SIGTERM or
SIGHUP finishes the run with verdict ``error`` and the evidence kept, as Ctrl-C does for
``faultlib run``. A worker whose regression was killed (``kill -9``: it hears it through
``PR_SET_PDEATHSIG``) finishes its run the same way and exits; if finishing takes longer than
:data:`ORPHAN_GRACE_S`, it kills its own process group: no worker outlives its regression by more.

The archive's credentials never travel in the environment or on the command line: the parent passes
them through a pipe (``FAULTLIB_CREDENTIALS_FD``, read by
:func:`faultlib.archive.credentials.secure_process`), as the CLI does for itself.

Messages (one JSON object a line, ``event`` first)::

    {"event": "run_started", "run_id", "run_dir"}
    {"event": "phase_started", "phase", "faults"}      {"event": "step", "phase", "step", "total"}
    {"event": "phase_restarted", "phase", "attempt", "reason"}
    {"event": "phase_finished", "phase", "status", "duration_s"}
    {"event": "assertions_started", "count"}           {"event": "assertions_finished", "passed", "failed"}
    {"event": "result", "record", "assertions", "report", "run_dir", "error", "not_archived", "interrupted"}

``error`` is ``{"type", "message", "exit_code", "field"}`` when the run raised before it finished
(requires not met, backend or archive unreachable); ``record`` is the run record when it finished.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from faultlib.events import RunListener
from faultlib import stops


class EventWriter(RunListener):
    """Writes every lifecycle event to ``stream`` as one JSON line; keeps the finished record."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.record = None
        self.run_dir: str | None = None
        self.parent_gone = False

    def emit(self, event: str, **fields: Any) -> None:
        """Write one event; when the parent regression is gone (its end of the pipe closed: it was killed),
        finish the run as interrupted, the way SIGTERM does, and write nothing more."""
        if self.parent_gone:
            return
        try:
            self.stream.write(json.dumps({"event": event, **fields}, default=str) + "\n")
            self.stream.flush()
        except BrokenPipeError:
            self.parent_gone = True
            stops.interrupt(signal.SIGTERM, once=True)

    def run_started(self, run_id: str, run_dir: str) -> None:
        self.run_dir = run_dir
        self.emit("run_started", run_id=run_id, run_dir=run_dir)

    def phase_started(self, phase: str, faults: list[str]) -> None:
        self.emit("phase_started", phase=phase, faults=list(faults))

    def step(self, phase: str, step: int, total: int | None) -> None:
        self.emit("step", phase=phase, step=step, total=total)

    def phase_restarted(self, phase: str, attempt: int, reason: str) -> None:
        self.emit("phase_restarted", phase=phase, attempt=attempt, reason=reason)

    def phase_finished(self, phase: str, result) -> None:
        self.emit("phase_finished", phase=phase, status=result.status.value, duration_s=result.duration_s)

    def assertions_started(self, count: int) -> None:
        self.emit("assertions_started", count=count)

    def assertions_finished(self, passed: list[str], failed: list[str]) -> None:
        self.emit("assertions_finished", passed=len(passed), failed=len(failed))

    def run_finished(self, record) -> None:
        self.record = record


#: seconds an orphaned worker (its regression was killed) has to finish its run before it kills itself and
#: its process group: the same grace the pool gives a worker it stops (pool.CANCEL_GRACE_S)
ORPHAN_GRACE_S = 30
_parent_pid: int | None = None
def _give_up(signum, _frame) -> None:
    """The orphan's grace ran out: kill the worker's process group (the worker included), now."""
    os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(137)  # pragma: no cover - not reached: the group's SIGKILL includes this process


def _interrupt(signum, _frame) -> None:
    if _parent_pid and os.getppid() != _parent_pid and signal.getitimer(signal.ITIMER_REAL)[0] == 0:
        # the regression is gone (killed): nobody will stop this worker if finishing the run hangs
        signal.signal(signal.SIGALRM, _give_up)
        signal.setitimer(signal.ITIMER_REAL, ORPHAN_GRACE_S)
    stops.interrupt(signum, once=True)


def install_stop_handlers() -> None:
    """SIGTERM and SIGHUP stop the run (``KeyboardInterrupt``), once: a killed regression tells its worker
    twice, in an order nothing fixes (its end of the pipe closes as it exits, then the kernel sends
    ``PR_SET_PDEATHSIG``'s SIGTERM), and a second ``KeyboardInterrupt`` while the first is handled would abort
    finishing the run (no manifest, ``run.lock`` left). A stop Python swallowed is sent again
    (:mod:`faultlib.stops`)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    stops.resend_swallowed_stops()


def _error(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc) or type(exc).__name__,
            "exit_code": getattr(exc, "exit_code", 1), "field": getattr(exc, "field", None)}


def run_case(spec: dict[str, Any], events: EventWriter) -> dict[str, Any]:
    """Run the case ``spec`` names; returns the ``result`` message (never raises but KeyboardInterrupt).

    Args:
        spec: ``{"case_dir", "archive", "backend", "backend_options", "control", "seed", "timeout_s", "report",
            "prometheus"}``.
        events: where lifecycle events go.
    """
    from faultlib.archive import open_archive
    from faultlib.backends import get_backend
    from faultlib.cases import load_case
    from faultlib.errors import FaultlibError, RunNotArchived
    from faultlib.regress.digest import DigestingArchive
    from faultlib.runner import Runner

    out: dict[str, Any] = {"record": None, "assertions": None, "report": None, "run_dir": None, "error": None,
                           "not_archived": None, "interrupted": False}
    archive = None
    try:
        case = load_case(spec["case_dir"])
        backend = get_backend(spec.get("backend", "local"), archive=spec.get("archive"),
                              **(spec.get("backend_options") or {}))
        archive = DigestingArchive(open_archive(spec.get("archive")), case, report=bool(spec.get("report")))
        record = Runner(archive, backend=backend, listener=events).run(
            case, control=spec.get("control", True), seed=spec.get("seed"), timeout_s=spec.get("timeout_s"),
            prometheus=bool(spec.get("prometheus")))
    except RunNotArchived as exc:
        record = exc.record
        out["not_archived"] = {"message": str(exc), "exit_code": exc.exit_code, "run_dir": str(exc.run_dir)}
    except KeyboardInterrupt:
        record = events.record
        out["interrupted"] = True
    except FaultlibError as exc:
        record = events.record
        out["error"] = _error(exc)
    except Exception as exc:  # noqa: BLE001 (this case's error; the regression goes on)
        record = events.record
        out["error"] = _error(exc)
        out["error"]["exit_code"] = 1
    if record is not None:
        out["record"] = record.to_json()
    if archive is not None:
        if archive.assertions is None and record is not None and events.run_dir and Path(events.run_dir).is_dir():
            archive.digest(Path(events.run_dir), record)  # not published (interrupted before): read it in place
        if archive.assertions is not None:
            out["assertions"] = [a.to_json() for a in archive.assertions]
            out["report"] = archive.report
            out["run_dir"] = str(archive.run_dir)
    out["run_dir"] = out["run_dir"] or events.run_dir
    return out


def die_with_parent(parent_pid: int | None) -> None:
    """Ask for SIGTERM when the parent dies (``PR_SET_PDEATHSIG``): the run is then finished as ``error``
    (SIGTERM is mapped to ``KeyboardInterrupt``). Exits at once when the parent is already gone.
    Does nothing where ``prctl`` is not available (not Linux)."""
    if not parent_pid or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent_pid:  # it died before the request took effect
        raise SystemExit(130)


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``SPEC`` is one JSON argument; ``spec["events_fd"]`` is the descriptor to write to."""
    from faultlib.archive.credentials import secure_process

    secure_process(sys.orig_argv)  # takes the credentials from the parent's pipe, if it sent any
    install_stop_handlers()
    args = sys.argv[1:] if argv is None else argv
    spec = json.loads(args[0])
    global _parent_pid
    _parent_pid = spec.get("parent_pid")
    die_with_parent(_parent_pid)
    stream = os.fdopen(int(spec["events_fd"]), "w", encoding="utf-8")
    events = EventWriter(stream)
    try:
        result = run_case(spec, events)
    except KeyboardInterrupt:  # the first stop came outside the runner (while the result was put together)
        result = {"record": events.record.to_json() if events.record else None, "interrupted": True,
                  "run_dir": events.run_dir}
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the result must get out whole
    try:
        events.emit("result", **result)
        stream.close()
    except (KeyboardInterrupt, BrokenPipeError):  # the parent is gone: nobody to tell
        return 130
    return 130 if result.get("interrupted") else 0


if __name__ == "__main__":
    sys.exit(main())
