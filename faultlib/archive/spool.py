"""The local spool of a remote archive: where a run is written, and where it waits until the store has it.

Layout, one directory tree per archive URI::

    <root>/<bucket>/<prefix>/<case_id>/<run_id>/    the run's evidence, exactly as it will be uploaded

``<root>`` is ``$FAULTLIB_SPOOL`` when set, else ``.faultlib/spool`` under the current directory.
A spooled run is *complete* when its ``manifest.json`` exists (the runner writes it last); only
complete runs are uploaded. A run is removed from the spool once the store holds every file.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from faultlib.evidence import layout

ENV_SPOOL = "FAULTLIB_SPOOL"
DEFAULT_ROOT = Path(".faultlib") / "spool"


@dataclass(frozen=True)
class SpooledRun:
    """One run directory waiting in the spool."""

    case: str
    run_id: str
    path: Path

    @property
    def complete(self) -> bool:
        """True when the runner finished the run (its manifest exists) and it can be uploaded."""
        return (self.path / layout.MANIFEST).is_file()


class Spool:
    """The spool directory of one remote archive.

    Args:
        bucket: the bucket name (already validated).
        prefix: the key prefix inside the bucket, ``/``-separated, without leading or trailing ``/``
            (may be empty).
        root: the spool root; default ``$FAULTLIB_SPOOL`` or ``.faultlib/spool`` (resolved now, so a
            later ``chdir`` does not move it).
    """

    def __init__(self, bucket: str, prefix: str, root: Path | str | None = None):
        root = root or os.environ.get(ENV_SPOOL) or DEFAULT_ROOT
        self.root = Path(root).expanduser().resolve()
        self.dir = self.root.joinpath(bucket, *[p for p in prefix.split("/") if p])

    def run_dir(self, case_id: str, run_id: str) -> Path:
        """Create and return the directory a new run is written into.

        Raises:
            FileExistsError: a run with this id is already spooled (run ids are unique).
        """
        path = self.dir / case_id / run_id
        path.mkdir(parents=True, exist_ok=False)
        return path

    def runs(self) -> list[SpooledRun]:
        """Every spooled run, complete or not, sorted by case then run id.

        A directory two levels below :attr:`dir` counts as a run when it holds at least one file
        directly; the trees of longer prefixes (``<prefix>/nightly/...``) hold only directories there.
        """
        if not self.dir.is_dir():
            return []
        found = []
        for path in sorted(p for p in self.dir.glob("*/*") if p.is_dir()):
            if any(child.is_file() for child in path.iterdir()):
                found.append(SpooledRun(path.parent.name, path.name, path))
        return found

    def holds(self, run_dir: Path) -> bool:
        """True when ``run_dir`` lies inside this spool."""
        return Path(run_dir).resolve().is_relative_to(self.dir)

    def remove(self, run_dir: Path) -> None:
        """Delete an uploaded run and the directories it leaves empty, up to the spool root."""
        run_dir = Path(run_dir).resolve()
        shutil.rmtree(run_dir)
        for parent in run_dir.parents:
            if parent == self.root or not parent.is_relative_to(self.root):
                break
            try:
                parent.rmdir()
            except OSError:  # not empty (other runs wait there) or removed concurrently
                break
