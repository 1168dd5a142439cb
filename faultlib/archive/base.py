"""The archive extension point: where a run's evidence directory ends up."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path

from faultlib.errors import ArchiveError


@dataclass(frozen=True)
class StoredRun:
    """One run as listed by an archive (``faultlib archive ls``)."""

    case: str
    run_id: str
    complete: bool
    started_at: str | None
    verdict: str | None

    def to_json(self) -> dict:
        return {"case": self.case, "run_id": self.run_id, "complete": self.complete,
                "started_at": self.started_at, "verdict": self.verdict}


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


@dataclass
class FlushReport:
    """What ``faultlib archive flush`` did.

    Attributes:
        flushed: the runs now complete in the store (and gone from the spool).
        incomplete: spooled run directories without a manifest (killed or still running): left alone.
        damaged: ``(run directory, problem)`` for spooled runs whose files no longer match their
            manifest: left in the spool, not uploaded.
    """

    flushed: list[FlushedRun] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    damaged: list[tuple[str, str]] = field(default_factory=list)

    @property
    def uploaded_files(self) -> int:
        return sum(run.uploaded for run in self.flushed)

    def to_json(self) -> dict:
        return {"flushed": [run.to_json() for run in self.flushed], "uploaded_files": self.uploaded_files,
                "incomplete": list(self.incomplete),
                "damaged": [{"path": path, "problem": problem} for path, problem in self.damaged]}


class Archive(abc.ABC):
    """Stores evidence directories laid out as ``<case_id>/<run_id>/``.

    The runner writes a run into :meth:`staging_dir`, finishes it there (manifest last) and
    then calls :meth:`publish`. ``manifest.json`` is always the last file to reach the store.
    """

    uri: str

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
