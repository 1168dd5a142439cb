"""The run lock: is a run's runner still alive, and finishing the runs of runners that died.

The runner writes ``run.lock`` into the run directory before anything else and removes it after
the manifest; the lock is never archived (not in the manifest). It is one JSON object, replaced
atomically whenever the runner records progress::

    {"lock_version": 1, "pid": 4242, "start_time": 1234567, "boot_id": "...", "host": "node-1",
     "started_at": "2026-11-30T12:00:48+00:00", "phases": ["control", "faulted"],
     "record": {...the run record so far (run.schema.json shape)...}}

``start_time`` is the runner's start time in clock ticks after boot (``/proc/PID/stat`` field 22)
and ``boot_id`` the kernel's boot id, so that a PID used again by another process, or after a
reboot, is not mistaken for the runner.

API (what ``faultlib archive flush`` and ``faultlib archive repair`` call):

``runner_alive(run_dir) -> bool | None``
    None: no lock (a finished run, or one started before locks existed). True: the process that
    wrote the lock still runs (same PID, start time and boot; a zombie counts as gone), or the lock
    was written on another host (its processes cannot be seen from here). False: it is gone, its
    PID now belongs to another process, the machine rebooted since, or the lock is unreadable (a
    repro overwrote it).

``is_orphaned(run_dir) -> bool``
    True when the run can be finished by :func:`finish_interrupted`: a lock is present, there is
    no ``manifest.json``, and ``runner_alive`` is False.

``finish_interrupted(run_dir) -> RunRecord``
    Finish a run whose runner died: stop the processes that still work for it (their environment
    names this run directory: the repro's children, the assertion suite), then write ``run.json``
    with verdict ``interrupted`` (the record the dead runner left in its lock: phases it finished
    keep their result, the phases it had planned but not finished become ``interrupted``;
    ``error`` says who died and when), read the evidence defensively exactly as the runner does
    (:func:`faultlib.evidence.finish.finish_run`: unreadable lines and rejected files become
    ``faultlib.runner`` findings), write ``junit.xml`` when the assertion suite did not, write the
    manifest and remove the lock. The run is then complete and can be uploaded. Raises
    :class:`~faultlib.errors.EvidenceError` when the run is not orphaned: the runner is alive, the
    run is complete (has a manifest), or the directory does not exist. A run without a lock and
    without a manifest (older faultlib) is finished too, from its directory names.

The runner's side: :func:`acquire` (start), :func:`update` (progress), :func:`release` (end).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from faultlib.processes.tree import environ_of, kill_matching, start_time
from faultlib.errors import EvidenceError, InputError
from faultlib.evidence import layout
from faultlib.fingerprint import UNKNOWN
from faultlib.readers import load_json, read_bytes
from faultlib.readers.files import Limits
from faultlib.record import PhaseResult, PhaseStatus, RunRecord, Verdict

LOCK = "run.lock"
LOCK_VERSION = 1
_LOCK_LIMITS = Limits(max_bytes=16 << 20)


def _boot_id() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return None


@dataclass(frozen=True)
class RunLock:
    """The content of ``run.lock`` (see the module docstring); ``record`` is the raw JSON the runner
    left (None when absent)."""

    pid: int
    start_time: int | None
    host: str
    started_at: str
    boot_id: str | None = None
    phases: tuple[str, ...] = ()
    assertions: tuple[str, ...] = ()
    record: dict[str, Any] | None = field(default=None, compare=False)


def _write(run_dir: Path, record: RunRecord, phases: tuple[str, ...], assertions: tuple[str, ...]) -> None:
    from faultlib.evidence.seal import claim, write_atomic

    body = {"lock_version": LOCK_VERSION, "pid": os.getpid(), "start_time": start_time(os.getpid()),
            "boot_id": _boot_id(), "host": socket.gethostname(), "started_at": record.started_at,
            "phases": list(phases), "assertions": list(assertions), "record": record.to_json()}
    claim(Path(run_dir), LOCK, keep_regular=True)  # a directory a repro put there cannot be replaced
    write_atomic(Path(run_dir), LOCK, json.dumps(body).encode())


def acquire(run_dir: Path, record: RunRecord, phases: tuple[str, ...], assertions: tuple[str, ...] = ()) -> None:
    """Write the lock for this process (before the run writes anything else).

    Args:
        run_dir: the new run directory.
        record: the record so far.
        phases: the phases the run will execute, in order.
        assertions: the ids of the case's assertions (failed in an interrupted run that did not run them).
    """
    _write(run_dir, record, phases, assertions)


def update(run_dir: Path, record: RunRecord, phases: tuple[str, ...], assertions: tuple[str, ...] = ()) -> None:
    """Record progress (the record so far) in the lock; atomic, so a kill leaves the old or the new one."""
    _write(run_dir, record, phases, assertions)


def release(run_dir: Path) -> None:
    """Remove the lock (after the manifest). A lock already gone is fine."""
    try:
        os.unlink(Path(run_dir) / LOCK)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        pass


def read_lock(run_dir: Path) -> RunLock | None:
    """The lock of ``run_dir``, or None when there is none.

    Raises:
        InputError: the lock is not a regular file or not the JSON object the runner writes.
    """
    path = Path(run_dir) / LOCK
    if not os.path.lexists(path):
        return None
    data = load_json(read_bytes(path, limits=_LOCK_LIMITS), path)
    if not isinstance(data, dict):
        raise InputError("run lock is not a JSON object", path=path)
    pid, started = data.get("pid"), data.get("start_time")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or \
            not (started is None or isinstance(started, int)) or not isinstance(data.get("host"), str):
        raise InputError("run lock lacks pid, start_time or host", path=path)
    phases = data.get("phases") if isinstance(data.get("phases"), list) else []
    assertions = data.get("assertions") if isinstance(data.get("assertions"), list) else []
    return RunLock(pid, started, data["host"], str(data.get("started_at") or ""),
                   data.get("boot_id") if isinstance(data.get("boot_id"), str) else None,
                   tuple(p for p in phases if p in layout.PHASES),
                   tuple(a for a in assertions if isinstance(a, str)),
                   data.get("record") if isinstance(data.get("record"), dict) else None)


def runner_alive(run_dir: Path) -> bool | None:
    """See the module docstring."""
    try:
        lock = read_lock(run_dir)
    except InputError:
        return False
    if lock is None:
        return None
    if lock.host != socket.gethostname():
        return True
    if lock.boot_id and _boot_id() and lock.boot_id != _boot_id():
        return False
    from faultlib.processes.tree import proc_info

    info = proc_info(lock.pid)
    if info is None or not info.alive:
        return False
    return lock.start_time is None or info.start_time == lock.start_time


def is_orphaned(run_dir: Path) -> bool:
    """See the module docstring."""
    run_dir = Path(run_dir)
    if os.path.lexists(run_dir / layout.MANIFEST):
        return False
    return runner_alive(run_dir) is False


def _stop_leftovers(run_dir: Path) -> list[int]:
    """SIGKILL the processes whose environment names ``run_dir`` (the repro's, the suite's)."""
    from faultlib.cases.suite_env import ENV_EVIDENCE
    from faultlib.repro import ENV_RUN_DIR

    wanted = {str(run_dir), os.path.realpath(run_dir)}

    def works_for_run(pid: int) -> bool:
        env = environ_of(pid) or {}
        return env.get(ENV_RUN_DIR) in wanted or env.get(ENV_EVIDENCE) in wanted

    return kill_matching(works_for_run)


def _record(run_dir: Path, lock: RunLock | None) -> tuple[RunRecord, tuple[str, ...]]:
    """The record the dead runner left, or one from the directory names."""
    if lock is not None and lock.record is not None:
        try:
            return RunRecord.from_json(lock.record), lock.phases
        except ValueError:
            pass
    started = lock.started_at if lock and lock.started_at else ""
    if not started:
        try:
            started = datetime.strptime(run_dir.name[:16], "%Y%m%dT%H%M%SZ").replace(
                tzinfo=timezone.utc).isoformat(timespec="seconds")
        except ValueError:
            started = datetime.fromtimestamp(run_dir.stat().st_mtime, timezone.utc).isoformat(timespec="seconds")
    record = RunRecord(run_id=run_dir.name, case={"id": run_dir.parent.name, "version": "", "path": ""},
                       backend="local", started_at=started, seed=0,
                       fingerprint={**UNKNOWN, "packages": {}, "devices": []})  # never recorded: unknown
    return record, lock.phases if lock else layout.PHASES


def ensure_junit(run_dir: Path, record: RunRecord, planned: tuple[str, ...] | list[str], message: str) -> None:
    """Give a run whose assertion suite wrote no ``junit.xml`` one anyway (CI reads it): every planned
    assertion (``record.assertions["failed"]`` when the suite never reported) as a testcase in error
    with ``message``. A junit.xml the suite wrote is left alone.

    Raises:
        OSError: the run directory cannot be written.
    """
    try:
        junit = os.lstat(run_dir / layout.JUNIT)
        if stat.S_ISREG(junit.st_mode) and junit.st_size > 0:
            return
    except FileNotFoundError:
        pass
    if not record.assertions["passed"] and not record.assertions["failed"]:
        record.assertions["failed"] = list(planned)  # the suite never reported
    _error_junit(run_dir, record, message)


def _error_junit(run_dir: Path, record: RunRecord, message: str) -> None:
    from faultlib.evidence.seal import claim, write_atomic

    failed = record.assertions.get("failed") or ["run_interrupted"]
    suite = ET.Element("testsuite", name=record.case["id"], tests=str(len(failed)), errors=str(len(failed)))
    for ident in failed:
        case = ET.SubElement(suite, "testcase", classname=record.case["id"], name=f"{record.case['id']}::{ident}")
        ET.SubElement(case, "error", message=message)
    claim(run_dir, layout.JUNIT, keep_regular=True)
    write_atomic(run_dir, layout.JUNIT, ET.tostring(suite, encoding="utf-8", xml_declaration=True))


def finish_interrupted(run_dir: Path) -> RunRecord:
    """See the module docstring.

    Returns:
        The record written to ``run.json`` (verdict ``interrupted``).

    Raises:
        EvidenceError: the run is not orphaned (runner alive, already complete, no such directory).
        OSError: the directory cannot be written (the run stays incomplete).
    """
    from faultlib.evidence.finish import finish_run
    from faultlib.evidence.problems import EvidenceProblem
    from faultlib.evidence.seal import claim

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise EvidenceError(f"{run_dir}: no such run directory")
    if os.path.lexists(run_dir / layout.MANIFEST):
        raise EvidenceError(f"{run_dir}: the run is complete (it has a manifest); nothing to finish")
    if runner_alive(run_dir):
        raise EvidenceError(f"{run_dir}: its runner is still alive (see {LOCK}); let it finish or stop it first")
    try:
        lock = read_lock(run_dir)
    except InputError:
        lock = None
    stopped = _stop_leftovers(run_dir)
    record, planned = _record(run_dir, lock)
    for phase in layout.PHASES:
        result: PhaseResult = getattr(record, phase)
        if phase in planned and result.status in (PhaseStatus.SKIPPED, PhaseStatus.INTERRUPTED):
            result.status = PhaseStatus.INTERRUPTED
    if lock and not record.assertions["passed"] and not record.assertions["failed"]:
        record.assertions["failed"] = list(lock.assertions)  # the suite never reported
    who = f"pid {lock.pid} on {lock.host}" if lock else "unknown (no readable run.lock)"
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    record.verdict = Verdict.INTERRUPTED
    record.error = (f"the runner ({who}) died before finishing the run; finished at {now} by "
                    f"faultlib.runlock.finish_interrupted" + (f" (stopped {len(stopped)} leftover process(es))"
                                                              if stopped else "")
                    + (f"; before that: {record.error}" if record.error else ""))
    try:
        started = datetime.fromisoformat(record.started_at).timestamp()
        times = [st.st_mtime for st in (os.lstat(p) for p in run_dir.iterdir()) if stat.S_ISREG(st.st_mode)]
        record.duration_s = max(0.0, max(times, default=started) - started)
    except (ValueError, OSError):
        pass
    ensure_junit(run_dir, record, lock.assertions if lock else (), record.error)
    moved = claim(run_dir, layout.PROMQL)  # the runner's evaluation or a repro's forgery: no way to tell
    if moved:
        record.findings = [*record.findings, EvidenceProblem(
            layout.PROMQL, None, f"PromQL results of an interrupted run cannot be told from a repro's: moved aside "
            f"to {moved.aside}; run the case again with --prometheus", kind="moved_aside").to_finding()]
    finish_run(run_dir, record, case_id=record.case["id"], exclude=(LOCK,))
    release(run_dir)
    return record

