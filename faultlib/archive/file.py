"""``file://DIR`` archive: evidence written in place under a local directory.

``get`` copies only the files a run's manifest lists, each checked (size and sha256) as it is
copied, never through a symbolic link, into ``--out`` all-or-nothing; case ids, run ids and manifest
entries are plain names that stay inside the archive and inside ``--out``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from faultlib.archive.base import Archive, RepairReport, StoredRun
from faultlib.archive.listing import stored_run
from faultlib.archive.manifest import read_manifest, safe_id
from faultlib.archive.members import closing, copy_fd, open_dir, open_file_at, read_file_at
from faultlib.archive.paths import check_writable_dir, local_path
from faultlib.archive.repair import repair_all
from faultlib.archive.spool import make_run_dir
from faultlib.archive.transfer import Download
from faultlib.errors import ArchiveError
from faultlib.evidence import layout


def subdirs(parent: Path) -> list[Path]:
    """The real directories directly in ``parent`` (symbolic links are not followed), sorted."""
    try:
        children = list(parent.iterdir())
    except OSError:
        return []
    out = []
    for child in children:
        try:
            if stat.S_ISDIR(os.lstat(child).st_mode):
                out.append(child)
        except OSError:
            continue
    return sorted(out)


class FileArchive(Archive):
    """Local directory archive; the default is ``file://.faultlib/runs``.

    Runs are written directly in their final place, so a killed run leaves its partial
    evidence there (without a manifest, listed as incomplete; ``faultlib archive repair`` finishes it).

    Raises:
        ArchiveError: ``root`` is not a usable path (empty, a NUL byte).
    """

    def __init__(self, root: Path | str):
        self.root = local_path(root, what="archive directory")
        self.uri = f"file://{self.root}"

    def preflight(self) -> None:
        """The root is a writable directory, or can be created (nothing is created now).

        Raises:
            ArchiveError: it is a file, under /proc or /sys, or not writable (exit 2).
        """
        check_writable_dir(self.root, what="archive directory")

    def _require_root(self) -> None:
        """Raises ArchiveError (exit 2) unless the archive directory exists."""
        if not os.path.lexists(self.root):
            raise ArchiveError(f"no archive at {self.root}: nothing was archived there (check the URI, or run a "
                               "case with --archive file://DIR first)")
        if not self.root.is_dir():
            raise ArchiveError(f"archive directory {self.root} is not a directory")

    def staging_dir(self, case_id: str, run_id: str) -> Path:
        """The run's directory, created in place: ``<root>/<case_id>/<run_id>/``.

        Raises:
            FileExistsError: the run exists already.
            ArchiveError: it cannot be created (a file in the way, not writable).
            InputError: an id is not a plain name.
        """
        path = self.root / safe_id(case_id, what="case id") / safe_id(run_id, what="run id")
        try:
            return make_run_dir(path)
        except FileExistsError:
            raise
        except OSError as exc:
            self.preflight()
            raise ArchiveError(f"cannot create the run directory {path}: {exc.strerror}") from None

    def run_uri(self, case_id: str, run_id: str) -> str:
        return f"file://{self.root / case_id / run_id}"

    def publish(self, run_dir: Path, case_id: str, run_id: str) -> None:
        """Nothing to do: the run was written in place."""

    def get(self, case_id: str, run_id: str, dest_dir: Path) -> Path:
        """Copy a complete run into ``dest_dir/<case_id>/<run_id>/``: only the files its manifest
        lists, each checked (size and sha256) while it is copied.

        Returns:
            The run directory written.

        Raises:
            InputError: an id is not a plain name, or the destination would leave ``dest_dir``.
            ManifestError: the manifest is malformed (names the run and the field).
            ArchiveError: no archive there, the run is unknown or incomplete, a file differs from
                the manifest or is a symbolic link (the message names it), or the destination exists.
                Nothing is left in ``dest_dir`` then.
        """
        case_id = safe_id(case_id, what="case id", where=self.uri)
        run_id = safe_id(run_id, what="run id", where=self.uri)
        self._require_root()
        run = f"{case_id}/{run_id}"
        try:
            run_fd = open_dir(self.root, [case_id, run_id])
        except FileNotFoundError:
            raise ArchiveError(f"no run {run} in {self.uri}: see `faultlib archive ls {self.uri}`") from None
        except ArchiveError as exc:
            raise ArchiveError(f"run {run} in {self.uri}: {exc}") from None
        with closing(run_fd):
            manifest = read_manifest(run_fd, run=run, path=str(self.root / run / layout.MANIFEST),
                                     expect=(case_id, run_id))
            if manifest is None:
                raise ArchiveError(f"run {run} is incomplete (no manifest.json): killed or still running; "
                                   f"`faultlib archive repair {self.uri}` finishes runs whose runner is gone")
            with Download(dest_dir, case_id, run_id) as download:
                for entry in manifest.files:
                    problem = self._copy(run_fd, entry, download)
                    if problem:
                        raise ArchiveError(f"run {run} does not match its manifest: {problem}")
                download.write(layout.MANIFEST, manifest.raw)
        return download.final

    @staticmethod
    def _copy(run_fd: int, entry, download: Download) -> str | None:
        """Copy one listed file into the download; what is wrong with it, or None."""
        try:
            src = open_file_at(run_fd, entry.name)
        except ArchiveError as exc:
            return str(exc)
        if src is None:
            return f"{entry.name}: listed in the manifest but missing"
        with closing(src):
            size = os.fstat(src).st_size
            if size != entry.bytes:
                return f"{entry.name}: {size} bytes, manifest says {entry.bytes}"
            with closing(download.create(entry.name)) as dst:
                digest = copy_fd(src, dst, limit=entry.bytes)
        if digest.size != entry.bytes:
            return f"{entry.name}: changed while it was copied"
        if digest.sha256 != entry.sha256:
            return f"{entry.name}: sha256 differs from the manifest"
        return None

    def _runs(self) -> list[tuple[str, str, Path]]:
        return [(case.name, run.name, run) for case in subdirs(self.root) for run in subdirs(case)]

    def list_runs(self) -> list[StoredRun]:
        """Every run directory, complete or not (symbolic links are not followed), sorted.

        Raises:
            ArchiveError: there is no archive at the root, or it is not a directory.
        """
        self._require_root()
        runs = []
        for case, run_id, path in self._runs():
            try:
                run_fd = open_dir(self.root, [case, run_id])
            except (FileNotFoundError, ArchiveError):  # removed or swapped meanwhile
                continue
            with closing(run_fd):
                runs.append(stored_run(case, run_id, lambda name, limit: read_file_at(run_fd, name, max_bytes=limit),
                                       where=str(path)))
        return runs

    def repair(self) -> RepairReport:
        """Finish every run whose runner was killed (see :mod:`faultlib.archive.repair`).

        Raises:
            ArchiveError: there is no archive at the root.
        """
        self._require_root()
        return repair_all(self._runs())
