"""The archive extension point: where a run's evidence directory ends up."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path


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
