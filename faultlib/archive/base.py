"""The archive extension point: where a run's evidence directory ends up, and what its commands report."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path

from faultlib.errors import ArchiveError


@dataclass(frozen=True)
class StoredRun:
    """One run as listed by an archive (``faultlib archive ls``).

    Attributes:
        complete: its manifest exists and is well formed.
        verdict: from its ``run.json``; ``?`` when that file is unreadable or malformed.
        note: why ``verdict``/``started_at`` are unknown, or what is wrong with the manifest; None when all is well.
        damaged: the manifest exists but is malformed (``archive ls`` exits 2).
    """

    case: str
    run_id: str
    complete: bool
    started_at: str | None
    verdict: str | None
    note: str | None = None
    damaged: bool = False

    def to_json(self) -> dict:
        return {"case": self.case, "run_id": self.run_id, "complete": self.complete,
                "started_at": self.started_at, "verdict": self.verdict, "note": self.note}


@dataclass(frozen=True)
class FlushedRun:
    """One spooled run that ``flush`` sent to the store.

    ``uploaded`` files were sent; ``already_stored`` were in the store already with the same
    size and sha256 and were not sent again.
    """

    case: str
    run_id: str
    uploaded: int
    already_stored: int

    def to_json(self) -> dict:
        return {"case": self.case, "run_id": self.run_id, "uploaded": self.uploaded,
                "already_stored": self.already_stored}


@dataclass(frozen=True)
class RunOutcome:
    """A run that a ``flush`` or ``repair`` did not finish, and why.

    Attributes:
        path: the run directory.
        reason: in words (``still running``, ``being flushed by another process``, the problem found).
        exit_code: what it contributes to the command's exit code: 0 (left for later), 2 (needs a
            person: damaged, malformed, access denied) or 3 (the store was unreachable).
    """

    case: str
    run_id: str
    path: str
    reason: str
    exit_code: int = 0

    def to_json(self) -> dict:
        return {"case": self.case, "run_id": self.run_id, "path": self.path, "reason": self.reason}


@dataclass(frozen=True)
class RepairedRun:
    """A run whose runner was gone, finished with verdict ``interrupted`` (run.json and manifest written)."""

    case: str
    run_id: str
    path: str
    verdict: str

    def to_json(self) -> dict:
        return {"case": self.case, "run_id": self.run_id, "path": self.path, "verdict": self.verdict}


def _exit_code(*groups: list[RunOutcome]) -> int:
    """2 when any run needs a person, else 3 when the store was unreachable, else 0."""
    codes = {outcome.exit_code for group in groups for outcome in group}
    return 2 if 2 in codes else 3 if 3 in codes else 0


@dataclass
class RepairReport:
    """What ``faultlib archive repair`` did.

    Attributes:
        repaired: runs finished now with verdict ``interrupted``.
        running: runs without manifest whose runner is alive: left alone.
        incomplete: runs without manifest that cannot be repaired (no ``run.lock``): left alone.
        failed: runs whose repair failed (``reason`` says why).
        skipped: runs another process holds (``being flushed by another process``).
    """

    repaired: list[RepairedRun] = field(default_factory=list)
    running: list[RunOutcome] = field(default_factory=list)
    incomplete: list[RunOutcome] = field(default_factory=list)
    failed: list[RunOutcome] = field(default_factory=list)
    skipped: list[RunOutcome] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return _exit_code(self.failed)

    def to_json(self) -> dict:
        return {"repaired": [r.to_json() for r in self.repaired], "running": [r.to_json() for r in self.running],
                "incomplete": [r.to_json() for r in self.incomplete], "failed": [r.to_json() for r in self.failed],
                "skipped": [r.to_json() for r in self.skipped]}


@dataclass
class FlushReport:
    """What ``faultlib archive flush`` did, run by run: one bad run never stops the others.

    Attributes:
        flushed: the runs now complete in the store (and gone from the spool).
        repaired: spooled runs whose runner was killed, finished first (verdict ``interrupted``);
            each also appears in ``flushed`` or ``failed``.
        incomplete: spooled runs without a manifest that were left alone (still running, or not
            repairable); ``reason`` says which.
        damaged: spooled runs whose manifest is malformed or whose files no longer match it, or hold
            a symbolic link: left in the spool, not uploaded (exit 2).
        failed: runs the store did not take: unreachable (exit 3), access denied or any other error (exit 2).
        skipped: runs another ``flush`` holds (``being flushed by another process``).
    """

    flushed: list[FlushedRun] = field(default_factory=list)
    repaired: list[RepairedRun] = field(default_factory=list)
    incomplete: list[RunOutcome] = field(default_factory=list)
    damaged: list[RunOutcome] = field(default_factory=list)
    failed: list[RunOutcome] = field(default_factory=list)
    skipped: list[RunOutcome] = field(default_factory=list)

    @property
    def uploaded_files(self) -> int:
        return sum(run.uploaded for run in self.flushed)

    @property
    def exit_code(self) -> int:
        """0 when nothing went wrong (incomplete and skipped runs wait for later); 2 when a run is
        damaged or was refused; else 3 when the store was unreachable."""
        return _exit_code(self.damaged, self.failed)

    def to_json(self) -> dict:
        return {"flushed": [run.to_json() for run in self.flushed], "uploaded_files": self.uploaded_files,
                "repaired": [run.to_json() for run in self.repaired],
                "incomplete": [run.to_json() for run in self.incomplete],
                "damaged": [{**run.to_json(), "problem": run.reason} for run in self.damaged],
                "failed": [{**run.to_json(), "exit_code": run.exit_code} for run in self.failed],
                "skipped": [run.to_json() for run in self.skipped]}


class Archive(abc.ABC):
    """Stores evidence directories laid out as ``<case_id>/<run_id>/``.

    The runner calls :meth:`preflight` before it writes anything, writes a run into
    :meth:`staging_dir`, finishes it there (manifest last) and then calls :meth:`publish`.
    ``manifest.json`` is always the last file to reach the store.
    """

    uri: str

    def preflight(self) -> None:
        """Check, before a run starts, that the archive can take it (nothing is written).

        Raises:
            ArchiveError: the archive is unusable (exit 2: not a directory, not writable, bad input).
            ArchiveUnavailable: its store cannot be reached (exit 3).
        """

    @abc.abstractmethod
    def staging_dir(self, case_id: str, run_id: str) -> Path:
        """Local directory the runner writes the run into (created)."""

    @abc.abstractmethod
    def run_uri(self, case_id: str, run_id: str) -> str:
        """The URI the run has (or will have) in this store."""

    @abc.abstractmethod
    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Make the finished run (manifest already written) durable in the store."""

    @abc.abstractmethod
    def list_runs(self) -> list[StoredRun]:
        """Every run in the store, complete or not, sorted by case then run id."""

    def get(self, case_id: str, run_id: str, dest_dir: Path) -> Path:
        """Download a run into ``dest_dir/<case_id>/<run_id>/``, verified against its manifest.

        Raises:
            ArchiveError: always, for archives that cannot fetch runs (both built-ins can).
        """
        raise ArchiveError(f"{self.uri}: this archive cannot fetch runs")

    def flush(self) -> FlushReport:
        """Upload the runs waiting in the local spool; archives that write in place have none."""
        return FlushReport()

    def repair(self) -> RepairReport:
        """Finish the runs whose runner was killed (see :mod:`faultlib.archive.repair`); none by default."""
        return RepairReport()
