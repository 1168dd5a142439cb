"""Finishing runs whose runner was killed (``kill -9``, OOM killer, a lost machine).

A runner holds ``run.lock`` in its run directory while it writes (:mod:`faultlib.runlock`). A run
directory without ``manifest.json`` whose runner is gone is *orphaned*: ``faultlib archive repair``
(and ``faultlib archive flush``, first) finishes it with :func:`faultlib.runlock.finish_interrupted`,
which writes ``run.json`` with verdict ``interrupted`` and the manifest, so the evidence already
written becomes a complete run. Evidence already written is never removed. A run whose runner is
still alive is left alone ("still running").
"""

from __future__ import annotations

import enum
import importlib
import os
from pathlib import Path

from faultlib.archive.base import RepairedRun, RepairReport, RunOutcome
from faultlib.archive.lock import BUSY_REASON, Lock, run_lock
from faultlib.errors import ArchiveError, FaultlibError
from faultlib.evidence import layout

RUN_LOCK = "run.lock"
NO_LOCK = ("no manifest.json and no run.lock: it is still starting, or its runner was killed before "
           "it locked the run (or an older faultlib wrote it); it cannot be repaired")


class State(str, enum.Enum):
    REPAIRED = "repaired"
    RUNNING = "running"
    UNREPAIRABLE = "unrepairable"


def _runlock():
    """:mod:`faultlib.runlock`, looked up at call time (tests may stand in for it).

    Raises:
        ArchiveError: it is not installed with this faultlib.
    """
    try:
        return importlib.import_module("faultlib.runlock")
    except ImportError as exc:
        raise ArchiveError("this faultlib has no faultlib.runlock: killed runs cannot be repaired") from exc


def repair_run(run_dir: Path) -> tuple[State, str]:
    """Finish ``run_dir`` (a run without manifest) if its runner is gone.

    Returns:
        ``(REPAIRED, verdict)`` when it was finished now (``(REPAIRED, "complete")`` when its runner
        finished it meanwhile); ``(RUNNING, reason)`` when its runner is alive;
        ``(UNREPAIRABLE, reason)`` when it has no ``run.lock``.

    Raises:
        FaultlibError: :mod:`faultlib.runlock` failed to finish it (the message says why).
    """
    if (run_dir / layout.MANIFEST).is_file():
        return State.REPAIRED, "complete"  # finished meanwhile (its runner wrote the manifest)
    runlock = _runlock()
    if not os.path.lexists(run_dir / getattr(runlock, "LOCK", RUN_LOCK)):
        return State.UNREPAIRABLE, NO_LOCK
    if runlock.is_orphaned(run_dir):
        record = runlock.finish_interrupted(run_dir)
        verdict = getattr(record, "verdict", "interrupted")
        return State.REPAIRED, str(getattr(verdict, "value", verdict))
    if (run_dir / layout.MANIFEST).is_file():
        return State.REPAIRED, "complete"
    return State.RUNNING, "still running (its runner is alive)"


def _failure(exc: BaseException) -> str:
    if isinstance(exc, FaultlibError):
        return str(exc)
    return f"unexpected {type(exc).__name__}: {exc}"


def repair_all(runs: list[tuple[str, str, Path]]) -> RepairReport:
    """Repair every orphaned run among ``runs`` (``(case, run_id, directory)``; complete ones are skipped).

    Each run is locked (see :mod:`faultlib.archive.lock`) while it is looked at; one that fails does
    not stop the others.
    """
    report = RepairReport()
    for case, run_id, path in runs:
        if (path / layout.MANIFEST).is_file():
            continue
        try:
            with run_lock(path) as (state, _):
                if state is Lock.BUSY:
                    report.skipped.append(RunOutcome(case, run_id, str(path), BUSY_REASON))
                    continue
                if state is Lock.GONE:
                    continue
                found, detail = repair_run(path)
        except Exception as exc:  # noqa: BLE001 - one run's failure is reported; the others go on
            report.failed.append(RunOutcome(case, run_id, str(path), _failure(exc), 2))
            continue
        if found is State.REPAIRED and detail != "complete":
            report.repaired.append(RepairedRun(case, run_id, str(path), detail))
        elif found is State.RUNNING:
            report.running.append(RunOutcome(case, run_id, str(path), detail))
        elif found is State.UNREPAIRABLE:
            report.incomplete.append(RunOutcome(case, run_id, str(path), detail))
    return report
