"""Running a plan: one worker process per case (:mod:`faultlib.regress.worker`), up to ``jobs`` at a time.

The parent starts every worker from its main thread, in a new session (no ``preexec_fn``: reader
threads are running), and reads each worker's events on a pipe in a reader thread; the main thread
turns them into progress and results. Each worker asks for SIGTERM when its parent dies
(``PR_SET_PDEATHSIG``, :func:`faultlib.regress.worker.die_with_parent`): a regression killed with
``kill -9`` still has its running cases finished as ``error``, with their evidence.

Stopping: Ctrl-C or SIGTERM on the parent (the CLI maps both to ``KeyboardInterrupt``) sends
SIGTERM to every running worker, which finishes its run (verdict ``error``, evidence kept) and
reports it; cases not started become ``not_run``. A worker still running :data:`CANCEL_GRACE_S`
seconds later, or on a second Ctrl-C, is killed with its process group (its run is then left
for ``faultlib archive repair``). A worker that runs past its case's budget (both phases'
timeouts, the assertion suite's and :data:`WATCHDOG_SLACK_S`) is stopped the same way.

When a worker reports that the backend or the archive cannot be reached (exit code 3), no further
case is started: they would all fail the same way; they become ``not_run``.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.archive import credentials
from faultlib.record import RunRecord, Verdict
from faultlib.regress.digest import assertion_results, clip
from faultlib.regress.plan import Plan, PlannedCase
from faultlib.regress.results import (
    AssertionResult,
    AssertionStatus,
    CaseResult,
    CaseVerdict,
    RegressListener,
    RegressResult,
)

CANCEL_GRACE_S = 30.0
EXIT_GRACE_S = 10.0
WATCHDOG_SLACK_S = 300.0
ASSERTION_BUDGET_S = 300.0
LINE_MAX_BYTES = 64 << 20
#: backends whose runs may overlap on one machine (compose publishes fixed host ports: one run at a time)
PARALLEL_BACKENDS = frozenset({"local", "kubernetes"})
_VERDICTS = {Verdict.PASSED: CaseVerdict.PASSED, Verdict.FAILED: CaseVerdict.FAILED, Verdict.ERROR: CaseVerdict.ERROR,
             Verdict.INTERRUPTED: CaseVerdict.INTERRUPTED}


@dataclass(frozen=True)
class RunOptions:
    """How each case runs (what ``faultlib run`` takes, for every case of the plan).

    Attributes:
        archive: the archive URI (None: ``file://.faultlib/runs``).
        backend: ``local``, ``compose`` or ``kubernetes``.
        backend_options: ``image``, ``namespace``, ``crd_dir``, ``storage_class``, ``volume_size``, ``world_workload`` (as
            :func:`faultlib.backends.get_backend` takes them; None values are left out).
        control: run the control phase.
        seed: override every case's ``repro.seed``.
        timeout_s: override every case's ``repro.timeout_s`` (seconds, per phase).
        report: digest each run's evidence for the HTML report.
        prometheus: evaluate each case's PromQL with a real Prometheus (``faultlib run --prometheus``).
    """

    archive: str | None = None
    backend: str = "local"
    backend_options: dict[str, Any] = field(default_factory=dict)
    control: bool = True
    seed: int | None = None
    timeout_s: float | None = None
    report: bool = False
    prometheus: bool = False


def effective_jobs(backend: str, jobs: int) -> int:
    """``jobs``, or 1 for a backend whose runs cannot overlap (see :data:`PARALLEL_BACKENDS`)."""
    return max(1, jobs) if backend in PARALLEL_BACKENDS else 1


@dataclass
class _Worker:
    planned: PlannedCase
    proc: subprocess.Popen
    log: Any
    started: float
    budget_s: float
    result: dict[str, Any] | None = None
    eof: bool = False
    stopping_since: float | None = None
    stop_reason: str | None = None


def _reader(case_id: str, fd: int, events: queue.Queue[tuple[str, Any]]) -> None:
    with os.fdopen(fd, "rb") as stream:
        for line in iter(lambda: stream.readline(LINE_MAX_BYTES), b""):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                events.put((case_id, message))
    events.put((case_id, None))


def _state(message: dict[str, Any]) -> str | None:
    event = message.get("event")
    if event == "phase_started":
        return f"{message.get('phase')}"
    if event == "step":
        total = message.get("total")
        return f"{message.get('phase')} {int(message.get('step', 0)) + 1}" + (f"/{total}" if total else "")
    if event == "phase_restarted":
        return f"{message.get('phase')} restart {int(message.get('attempt', 1)) + 1}"
    if event == "assertions_started":
        return f"assertions ({message.get('count')})"
    return None


def _base(planned: PlannedCase) -> dict[str, Any]:
    case = planned.case
    return {"id": planned.id, "title": case.title if case else "", "fault_class": case.fault_class if case else "",
            "version": case.version if case else "", "severity": case.severity if case else ""}


def _all(planned: PlannedCase, status: AssertionStatus, message: str, detail: str = "") -> list[AssertionResult]:
    return [AssertionResult(a.id, status, a.when, a.description, clip(message, 2000), detail)
            for a in (planned.case.assertions if planned.case else ())]


def invalid_result(planned: PlannedCase) -> CaseResult:
    """The result of a case that does not load: verdict ``invalid``, one failed ``case`` entry."""
    text = str(planned.error)
    entry = AssertionResult("case", AssertionStatus.FAILED, message=f"invalid case: {text.splitlines()[0]}",
                            detail=f"{text}\nRun `faultlib validate {planned.path}` for every problem.")
    return CaseResult(verdict=CaseVerdict.INVALID, error=f"invalid case: {text}", assertions=[entry], **_base(planned))


def not_run_result(planned: PlannedCase, reason: str) -> CaseResult:
    """A case that was not started (``reason``: why)."""
    return CaseResult(verdict=CaseVerdict.NOT_RUN, error=f"not run: {reason}",
                      assertions=_all(planned, AssertionStatus.ERROR, f"not run: {reason}"), **_base(planned))


def case_result(planned: PlannedCase, message: dict[str, Any] | None, *, duration_s: float,
                worker_log: str = "") -> CaseResult:
    """Turn a worker's ``result`` message into a :class:`CaseResult` (the verdict mapping lives here).

    Args:
        planned: the case.
        message: the worker's ``result`` message (:mod:`faultlib.regress.worker`); None when the worker
            ended without one (it crashed or was killed).
        duration_s: the case's wall time, in seconds.
        worker_log: the end of the worker's own output, quoted when there is no result.

    Returns:
        The result: verdict from the run record when the run finished (``interrupted`` when it was stopped);
        else ``unavailable`` (exit code 3 errors), ``skipped`` (``requires.devices``) or ``error``.
    """
    base = {**_base(planned), "duration_s": duration_s}
    if message is None:
        text = f"the regress worker ended without a result: {worker_log.strip()[-2000:] or 'no output'}"
        return CaseResult(verdict=CaseVerdict.ERROR, error=text, assertions=_all(planned, AssertionStatus.ERROR, text),
                          **base)
    record = None
    try:
        record = RunRecord.from_json(message["record"]) if message.get("record") else None
    except ValueError:
        record = None
    error = message.get("error") if isinstance(message.get("error"), dict) else None
    interrupted = bool(message.get("interrupted"))
    run_dir = message.get("run_dir") if isinstance(message.get("run_dir"), str) else None
    if record is None:
        if interrupted:
            verdict, text = CaseVerdict.INTERRUPTED, "interrupted (Ctrl-C or SIGTERM) before the run finished"
        elif error and error.get("exit_code") == 3:
            verdict, text = CaseVerdict.UNAVAILABLE, str(error.get("message"))
        elif error and str(error.get("field") or "").startswith("requires.devices"):
            verdict, text = CaseVerdict.SKIPPED, f"skipped: {error.get('message')}"
        else:
            text = f"{error.get('type')}: {error.get('message')}" if error else "the run did not finish"
            verdict = CaseVerdict.ERROR
        status = AssertionStatus.SKIPPED if verdict is CaseVerdict.SKIPPED else AssertionStatus.ERROR
        return CaseResult(verdict=verdict, error=text, run_dir=run_dir, assertions=_all(planned, status, text), **base)
    try:
        assertions = [AssertionResult.from_json(a) for a in message.get("assertions") or []]
    except ValueError:
        assertions = []
    if not assertions and planned.case is not None:
        assertions = assertion_results(planned.case, Path(run_dir) if run_dir and Path(run_dir).is_dir() else None,
                                       record)
    verdict = CaseVerdict.INTERRUPTED if interrupted else _VERDICTS.get(record.verdict, CaseVerdict.ERROR)
    text = record.error
    if verdict is CaseVerdict.FAILED and not text:
        failed = [a.id for a in assertions if a.status in (AssertionStatus.FAILED, AssertionStatus.ERROR)]
        text = f"assertion(s) failed: {', '.join(failed) or ', '.join(record.assertions.get('failed', []))}"
    if verdict is not CaseVerdict.PASSED and not any(
            a.status in (AssertionStatus.FAILED, AssertionStatus.ERROR) for a in assertions):
        runner = [f.message for f in record.findings] or [text or f"verdict {record.verdict.value}"]
        text = text or f"verdict {record.verdict.value}: " + "; ".join(runner[:3])
        assertions.append(AssertionResult("run", AssertionStatus.ERROR, message=clip(text, 2000),
                                          detail=clip("\n".join(runner), 20000)))
    not_archived = message.get("not_archived") if isinstance(message.get("not_archived"), dict) else None
    return CaseResult(verdict=verdict, run_id=record.run_id, archive_uri=record.archive_uri or None, run_dir=run_dir,
                      error=text, assertions=assertions, record=record,
                      report=message.get("report") if isinstance(message.get("report"), dict) else None,
                      not_archived=str(not_archived.get("message")) if not_archived else None, **base)


class Pool:
    """Runs a :class:`~faultlib.regress.plan.Plan` with up to ``jobs`` workers.

    Args:
        plan: the cases.
        options: how each case runs.
        jobs: how many cases run at once (see :func:`effective_jobs`).
        listener: progress display.
    """

    def __init__(self, plan: Plan, options: RunOptions, *, jobs: int = 1, listener: RegressListener | None = None):
        self.plan = plan
        self.options = options
        self.jobs = effective_jobs(options.backend, jobs)
        self.listener = listener or RegressListener()
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.running: dict[str, _Worker] = {}
        self.results: dict[str, CaseResult] = {}
        self.stop_reason: str | None = None
        self.unreachable = False
        self.interrupted = False

    def _spec(self, planned: PlannedCase, events_fd: int) -> dict[str, Any]:
        o = self.options
        return {"case_dir": str(planned.path), "archive": o.archive, "backend": o.backend,
                "backend_options": {k: (str(v) if isinstance(v, Path) else v) for k, v in o.backend_options.items()
                                    if v is not None},
                "control": o.control, "seed": o.seed, "timeout_s": o.timeout_s, "report": o.report,
                "prometheus": o.prometheus,
                "events_fd": events_fd, "parent_pid": os.getpid()}

    def _start(self, planned: PlannedCase) -> None:
        read_fd, write_fd = os.pipe()
        env = credentials.without_secrets(os.environ)
        held = {k: v for k, v in credentials.environ().items() if k in credentials.SECRET_NAMES and v}
        fds = [write_fd]
        if held:  # through a pipe, never the environment (see faultlib.archive.credentials)
            cred_read, cred_write = os.pipe()
            os.write(cred_write, json.dumps(held).encode())
            os.close(cred_write)
            env[credentials.ENV_FD] = str(cred_read)
            fds.append(cred_read)
        log = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen([sys.executable, "-m", "faultlib.regress.worker",
                                     json.dumps(self._spec(planned, write_fd))], env=env, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log, pass_fds=fds, start_new_session=True)
        except BaseException:
            os.close(read_fd)
            log.close()
            raise
        finally:
            for fd in fds:
                os.close(fd)
        case = planned.case
        timeout = self.options.timeout_s or (case.timeout_s if case else 0.0)
        budget = timeout * (2 if self.options.control else 1) + ASSERTION_BUDGET_S + WATCHDOG_SLACK_S
        self.running[planned.id] = _Worker(planned, proc, log, time.monotonic(), budget)
        threading.Thread(target=_reader, args=(planned.id, read_fd, self.events), daemon=True).start()
        self.listener.case_started(planned.id)

    def _signal(self, worker: _Worker, sig: int) -> None:
        if worker.proc.returncode is None:  # never reaped before _finish: the pid is still the worker's
            try:
                os.kill(worker.proc.pid, sig) if sig != signal.SIGKILL else os.killpg(worker.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def _stop(self, worker: _Worker, reason: str) -> None:
        if worker.stopping_since is None:
            worker.stopping_since, worker.stop_reason = time.monotonic(), reason
            self._signal(worker, signal.SIGTERM)

    def _finish(self, worker: _Worker) -> None:
        proc = worker.proc
        deadline = time.monotonic() + EXIT_GRACE_S
        while time.monotonic() < deadline:  # wait without reaping: the group id stays ours while we kill in it
            try:
                if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                    break
            except ChildProcessError:
                break
            time.sleep(0.05)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the worker, or what it left in its group
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        log_text = ""
        if not worker.log.closed:
            worker.log.seek(max(0, worker.log.seek(0, os.SEEK_END) - 8000))
            log_text = worker.log.read().decode("utf-8", errors="replace")
            worker.log.close()
        self.running.pop(worker.planned.id, None)
        duration = time.monotonic() - worker.started
        result = case_result(worker.planned, worker.result, duration_s=duration, worker_log=log_text)
        if worker.stop_reason and not self.interrupted:  # the watchdog stopped it: an error, not an interruption
            result.verdict = CaseVerdict.ERROR
            result.error = f"{worker.stop_reason}; {result.error}"
        self._record(result, worker.result)

    def _record(self, result: CaseResult, message: dict[str, Any] | None) -> None:
        self.results[result.id] = result
        not_archived = (message or {}).get("not_archived")
        if result.verdict is CaseVerdict.UNAVAILABLE or (isinstance(not_archived, dict)
                                                         and not_archived.get("exit_code") == 3):
            self.unreachable = True
            self.stop_reason = self.stop_reason or (result.error or result.not_archived or "unreachable")
        elif result.not_archived:
            self.unreachable = True
        self.listener.case_finished(result)

    def _handle(self, case_id: str, message: dict[str, Any] | None) -> None:
        worker = self.running.get(case_id)
        if worker is None:
            return
        if message is None:
            worker.eof = True
            self._finish(worker)
        elif message.get("event") == "result":
            worker.result = message
        else:
            state = _state(message)
            if state:
                self.listener.case_state(case_id, state)

    def _watch(self) -> None:
        now = time.monotonic()
        for worker in list(self.running.values()):
            if worker.stopping_since is None and now - worker.started > worker.budget_s:
                self._stop(worker, f"stopped by regress after {worker.budget_s:.0f} s (both phases' timeouts, the "
                                   "assertion suite's and a margin)")
            elif worker.stopping_since is not None and now - worker.stopping_since > CANCEL_GRACE_S:
                self._signal(worker, signal.SIGKILL)

    def run(self) -> RegressResult:
        """Run every case of the plan; returns when each has a result.

        Returns:
            The results in plan order; ``interrupted`` is set when Ctrl-C or SIGTERM stopped the regression
            (the caller then re-raises ``KeyboardInterrupt`` once it has written its reports).
        """
        order = [p.id for p in self.plan.cases]
        self.listener.planned(order)
        pending = []
        for planned in self.plan.cases:
            if planned.case is None:
                self._record(invalid_result(planned), None)
            else:
                pending.append(planned)
        pending.reverse()
        while pending or self.running:
            try:
                while pending and len(self.running) < self.jobs and self.stop_reason is None:
                    planned = pending.pop()
                    try:
                        self._start(planned)
                    except OSError as exc:  # no process or pipe to be had (fork failed, out of descriptors)
                        text = f"the regress worker could not be started: {exc}"
                        self._record(CaseResult(verdict=CaseVerdict.ERROR, error=text, assertions=_all(
                            planned, AssertionStatus.ERROR, text), **_base(planned)), None)
                if not self.running:
                    break
                try:
                    self._handle(*self.events.get(timeout=0.25))
                except queue.Empty:
                    pass
                self._watch()
            except KeyboardInterrupt:
                if self.interrupted:  # a second Ctrl-C: no more waiting
                    for worker in list(self.running.values()):
                        self._signal(worker, signal.SIGKILL)
                self.interrupted = True
                self.stop_reason = self.stop_reason or "the regression was interrupted (Ctrl-C or SIGTERM)"
                for worker in list(self.running.values()):
                    if worker.eof:  # its end was being handled when the interrupt came: finish that
                        self._finish(worker)
                    else:
                        self._stop(worker, "interrupted (Ctrl-C or SIGTERM)")
        for planned in reversed(pending):
            self._record(not_run_result(planned, self.stop_reason or "stopped"), None)
        return RegressResult(cases=[self.results[i] for i in order], shard=str(self.plan.shard),
                             selected=self.plan.selected, unreachable=self.unreachable, interrupted=self.interrupted)
