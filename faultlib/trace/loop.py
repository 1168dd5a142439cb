"""``faultlib trace --asyncio -- python SCRIPT.py``: run an unmodified asyncio script with a
:class:`~faultlib.detect.serving.loop_watchdog.LoopWatchdog` on every event loop it runs, and report the
calls that blocked a loop past the threshold.

Child side (:func:`child_main`, started by :data:`ASYNCIO_LAUNCHER`): ``BaseEventLoop.run_forever``
is wrapped so each run of a loop (``asyncio.run``, ``run_until_complete``, in any thread) has a
watchdog from its first callback to its return; the script runs with ``runpy`` as ``python
SCRIPT`` would; the result file gets ``loops`` (distinct loops watched), ``events`` (every
:class:`~faultlib.detect.serving.loop_watchdog.BlockEvent`) and ``lags_ms`` (each loop iteration's busy time, for the
percentiles). Loops that are not asyncio's own (uvloop) are not watched. torch is not needed.
Each iteration of a loop is timed (:mod:`faultlib.detect.serving.loop_watchdog`, iteration mode).

Parent side (:func:`trace_asyncio`): one run, no replay. Exit codes as ``faultlib trace``
(:data:`faultlib.trace.session.EXIT_CODES`), with 1 meaning "a loop was blocked past the threshold".
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from faultlib.findings import Finding
from faultlib.trace.session import (Reason, _Pass, _run_pass, exit_code_for,
                                    resolve_command)

ENV_THRESHOLD = "FAULTLIB_TRACE_LOOP_THRESHOLD_MS"
MAX_REPORTED_EVENTS = 1_000

ASYNCIO_LAUNCHER = """\
import json, os, sys
try:
    from faultlib.trace.loop import child_main
except ImportError as exc:
    with open(os.environ["FAULTLIB_TRACE_RESULT"], "w") as fh:
        json.dump({"could_not_start": f"{type(exc).__name__}: {exc}"}, fh)
    sys.exit(4)
sys.exit(child_main(sys.argv[1:]))
"""
"""Run as ``PYTHON -c ASYNCIO_LAUNCHER SCRIPT ARGS...``."""


# -- child side -----------------------------------------------------------------------------------
def install(threshold_ms: float) -> list:
    """Wrap ``asyncio.BaseEventLoop.run_forever`` so every run of a loop is watched; returns the
    list the watchdogs are appended to (one per run of a loop)."""
    import asyncio.base_events

    from faultlib.detect.serving.loop_watchdog import LoopWatchdog

    watchdogs: list[tuple[int, LoopWatchdog]] = []
    original = asyncio.base_events.BaseEventLoop.run_forever

    def run_forever(loop):
        watchdog = LoopWatchdog(threshold_ms=threshold_ms)
        watchdog.start(loop)
        watchdogs.append((id(loop), watchdog))
        try:
            return original(loop)
        finally:
            watchdog.stop()

    run_forever.__wrapped__ = original
    asyncio.base_events.BaseEventLoop.run_forever = run_forever
    return watchdogs


def child_main(argv: list[str]) -> int:
    """Run ``argv`` (``SCRIPT ARGS...``) under the loop watchdogs; write the result file. Returns 0."""
    from faultlib.trace.script import _write_result, run_script

    result_path = os.environ["FAULTLIB_TRACE_RESULT"]
    _write_result(result_path, {"started": True})
    watchdogs = install(float(os.environ.get(ENV_THRESHOLD) or 50.0))
    result = run_script(argv)
    for _, watchdog in watchdogs:
        watchdog.stop()
    events = [e.to_json() for _, w in watchdogs for e in w.events]
    lags = [lag for _, w in watchdogs for lag in w.lags_ms()]
    result.update(loops=len({key for key, _ in watchdogs}), events=events, lags_ms=[round(v, 3) for v in lags])
    _write_result(result_path, result)
    return 0


# -- parent side ----------------------------------------------------------------------------------
@dataclass
class LoopTraceReport:
    """What ``faultlib trace --asyncio --json`` prints.

    Attributes:
        reason: None when ok; :attr:`Reason.LOOP_BLOCKED` when a loop was blocked past the
            threshold; else how the script failed (``script_raised``, ``script_exit``,
            ``interrupted``, ``could_not_start``).
        threshold_ms: the threshold, in ms (default 50: the W3C Long Tasks threshold).
        loops: distinct asyncio event loops watched.
        first_block: the first ``loop_blocked`` event (``file``, ``line``, ``function``, ``call``,
            ``blocked_ms``, ``entry``, ``via``, ``innermost``, ``loop_cpu_ms``, ``stack``...) or None.
        events: every stall past the threshold, in order (``kind`` ``loop_blocked`` or ``loop_lag``).
        findings: the events grouped by site (:func:`faultlib.detect.serving.loop_watchdog.findings_from_events`).
        iterations: ``{count, p50_ms, p99_ms, max_ms}``: how long each iteration of the watched loops
            held its loop (the wait of any event that arrived during it), or None when no loop ran.
        script_exit, error, notes: as in :class:`faultlib.trace.session.TraceReport`.
    """

    reason: Reason | None = None
    threshold_ms: float = 50.0
    loops: int = 0
    first_block: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    iterations: dict[str, float] | None = None
    script_exit: int | None = 0
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.reason is None

    @property
    def exit_code(self) -> int:
        return exit_code_for(self.reason, self.script_exit, found=Reason.LOOP_BLOCKED)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "mode": "asyncio", "reason": self.reason.value if self.reason else None,
                "exit_code": self.exit_code, "threshold_ms": self.threshold_ms, "loops": self.loops,
                "first_block": self.first_block, "events": self.events[:MAX_REPORTED_EVENTS],
                "events_total": len(self.events), "findings": [f.to_json() for f in self.findings],
                "iterations": self.iterations,
                "script_exit": self.script_exit, "stopped_by_trace": False, "error": self.error, "notes": self.notes}


def _report(run: _Pass, threshold_ms: float) -> LoopTraceReport:
    from faultlib.detect.serving.latency import percentile
    from faultlib.detect.serving.loop_watchdog import BlockEvent, findings_from_events

    raw = run.raw or {}
    report = LoopTraceReport(threshold_ms=threshold_ms, loops=int(raw.get("loops") or 0), script_exit=run.script_exit,
                             error=run.error)
    report.events = list(raw.get("events") or [])
    lags = [float(v) for v in raw.get("lags_ms") or []]
    if lags:
        report.iterations = {"count": len(lags), "p50_ms": round(percentile(lags, 50), 3),
                      "p99_ms": round(percentile(lags, 99), 3), "max_ms": round(max(lags), 3)}
    events = [BlockEvent(**{**e, "via": tuple(e.get("via") or ()), "stack": tuple(e.get("stack") or ())})
              for e in report.events]
    report.findings = findings_from_events(events, threshold_ms)
    blocked = [e for e in report.events if e["kind"] == "loop_blocked"]
    report.first_block = blocked[0] if blocked else None
    failed = {"could_not_start": Reason.COULD_NOT_START, "interrupted": Reason.INTERRUPTED,
              "raised": Reason.SCRIPT_RAISED}.get(run.end)
    if failed is None and run.end == "exit" and (run.script_exit or 0) % 256:
        failed = Reason.SCRIPT_EXIT
    if blocked:
        report.reason = Reason.LOOP_BLOCKED
        if failed is not None:
            report.notes.append(f"the script also failed ({failed.value}"
                                + (f": {run.error}" if run.error else f", exit code {run.script_exit}") + ")")
    else:
        report.reason = failed
    if run.end != "could_not_start" and report.loops == 0:
        report.notes.append("no asyncio event loop ran (a script without asyncio, or on another loop "
                            "implementation such as uvloop): nothing was watched")
    lagged = [e for e in report.events if e["kind"] == "loop_lag"]
    if lagged:
        report.notes.append(f"{len(lagged)} time(s) a loop ran late while idle in its selector: the process was "
                            "starved of CPU (another thread holding the GIL, an overloaded machine), not blocked "
                            "by a call on the loop")
    return report


def trace_asyncio(command: list[str], *, threshold_ms: float = 50.0, stdout=None, stderr=None) -> LoopTraceReport:
    """Run ``command`` (``["python", "SCRIPT.py", ARGS...]``) once with a watchdog on every asyncio loop.

    Args:
        command: the interpreter, the script, its arguments; the interpreter must import faultlib
            (a bare ``python``/``python3`` is the interpreter faultlib runs in).
        threshold_ms: a loop at least this late is blocked, in ms (default 50, the W3C Long Tasks
            threshold; see :mod:`faultlib.detect.serving.loop_watchdog`).
        stdout, stderr: where the script's output goes (default: inherited).

    Returns:
        the :class:`LoopTraceReport`; a failure of the script is in it (``reason``), never raised.

    Raises:
        ScriptError: the command is not ``python SCRIPT.py ...``, or the script or interpreter is
            missing (before the script runs).
    """
    python, script, args = resolve_command(command)
    run = _run_pass(python, script, args, env_extra={ENV_THRESHOLD: repr(float(threshold_ms))}, stdout=stdout,
                    stderr=stderr, launcher=ASYNCIO_LAUNCHER, needs="faultlib-ml", stdin=None)  # the user's stdin
    return _report(run, float(threshold_ms))


if __name__ == "__main__":  # python -m faultlib.trace.loop SCRIPT ARGS... (trace uses the launcher)
    sys.exit(child_main(sys.argv[1:]))
