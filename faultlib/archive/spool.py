"""The local spool of a remote archive: where a run is written, and where it waits until the store has it.

Layout, one directory tree per archive URI::

    <root>/<bucket>/<prefix>/<case_id>/<run_id>/    the run's evidence, exactly as it will be uploaded

``<root>`` is ``$FAULTLIB_SPOOL`` when set, else ``.faultlib/spool`` under the current directory.
A spooled run is *complete* when its ``manifest.json`` exists (the runner writes it last); only
complete runs are uploaded. A run is removed from the spool once the store holds every file.
While a process flushes a run it holds the run directory's lock (:mod:`faultlib.archive.lock`).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from faultlib.archive.manifest import safe_id
from faultlib.archive.paths import check_writable_dir, local_path
from faultlib.errors import ArchiveError
from faultlib.evidence import layout
from faultlib.outputs import output_dir

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
        try:
            return stat.S_ISREG(os.stat(self.path / layout.MANIFEST, follow_symlinks=False).st_mode)
        except OSError:
            return False


def _is_dir(path: Path) -> bool:
    """A real directory (not a link to one)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def make_run_dir(path: Path) -> Path:
    """Create the new run directory ``path`` and its parents (none of them a symbolic link).

    Raises:
        InputError: a parent is a symbolic link (``runs/<case> -> /etc``) or a file (exit 2, naming it).
        FileExistsError: ``path`` exists already (run ids are unique).
        FileNotFoundError: a parent was removed meanwhile (try again).
        OSError: a parent cannot be created (a file in the way, not writable).
    """
    output_dir(path.parent, "run directory")  # created one component at a time, never through a link
    path.mkdir()
    return path


class Spool:
    """The spool directory of one remote archive.

    Args:
        bucket: the bucket name (already validated).
        prefix: the key prefix inside the bucket, ``/``-separated, without leading or trailing ``/``
            (may be empty).
        root: the spool root; default ``$FAULTLIB_SPOOL`` or ``.faultlib/spool`` (resolved now, so a
            later ``chdir`` does not move it).

    Raises:
        ArchiveError: the root is not a usable path (empty, a NUL byte).
    """

    def __init__(self, bucket: str, prefix: str, root: Path | str | None = None):
        what = f"spool directory ({ENV_SPOOL})" if root is None and os.environ.get(ENV_SPOOL) else "spool directory"
        self.what = what
        self.root = local_path(root or os.environ.get(ENV_SPOOL) or DEFAULT_ROOT, what=what)
        self.dir = self.root.joinpath(bucket, *[p for p in prefix.split("/") if p])

    def check(self) -> None:
        """The spool can take a run: a writable directory (or one that can be created), not under /proc.

        Raises:
            ArchiveError: it cannot (exit 2).
        """
        check_writable_dir(self.root, what=self.what)
        check_writable_dir(self.dir, what=self.what)

    def run_dir(self, case_id: str, run_id: str) -> Path:
        """Create and return the directory a new run is written into.

        Raises:
            FileExistsError: a run with this id is already spooled (run ids are unique).
            ArchiveError: the spool cannot take it (a file in the way, not writable).
            InputError: an id is not a plain name.
        """
        path = self.dir / safe_id(case_id, what="case id") / safe_id(run_id, what="run id")
        for _ in range(3):
            try:
                return make_run_dir(path)
            except FileNotFoundError:  # a flush removed the emptied case directory meanwhile: again
                continue
            except FileExistsError:
                raise
            except OSError as exc:
                self.check()
                raise ArchiveError(f"cannot create the run directory {path}: {exc.strerror}") from None
        raise ArchiveError(f"{path.parent} keeps disappearing while the run directory is created")

    def runs(self) -> list[SpooledRun]:
        """Every spooled run, complete or not, sorted by case then run id.

        A directory two levels below :attr:`dir` counts as a run when it holds at least one file
        directly; the trees of longer prefixes (``<prefix>/nightly/...``) hold only directories there.
        A symbolic link two levels below counts too (flushing it reports it; it is never followed).

        Raises:
            ArchiveError: the spool directory exists but is not a directory.
        """
        if not os.path.lexists(self.dir):
            return []
        if not self.dir.is_dir():
            raise ArchiveError(f"{self.what} {self.dir} is not a directory")
        found = []
        for case in sorted(self._entries(self.dir, dirs_only=True)):
            for run in sorted(self._entries(case)):
                try:
                    holds_file = run.is_symlink() or any(not _is_dir(child) for child in run.iterdir())
                except OSError:  # removed meanwhile (flushed by another process), or unreadable
                    continue
                if holds_file:
                    found.append(SpooledRun(case.name, run.name, run))
        return found

    @staticmethod
    def _entries(parent: Path, *, dirs_only: bool = False) -> list[Path]:
        """Directories (and, unless ``dirs_only``, symlinks) directly in ``parent``; links are not followed."""
        try:
            children = list(parent.iterdir())
        except OSError:  # removed meanwhile, or unreadable
            return []
        return [c for c in children if _is_dir(c) or (not dirs_only and c.is_symlink())]

    def holds(self, run_dir: Path) -> bool:
        """True when ``run_dir`` lies inside this spool."""
        return Path(os.path.realpath(run_dir)).is_relative_to(self.dir)

    def remove(self, run_dir: Path) -> None:
        """Delete an uploaded run and the directories it leaves empty, up to the spool root."""
        run_dir = Path(run_dir)
        if run_dir.is_symlink():
            run_dir.unlink()
        else:
            shutil.rmtree(run_dir, ignore_errors=True)
        for parent in run_dir.parents:
            if parent == self.root or not parent.is_relative_to(self.root):
                break
            try:
                parent.rmdir()
            except OSError:  # not empty (other runs wait there) or removed concurrently
                break
