"""Moving a run's files: checking a local run against its manifest before upload, and writing a
fetched run into ``--out`` all-or-nothing. Only the files the manifest lists move, each through
:mod:`faultlib.archive.members` (no symbolic link is ever followed), each checked as it passes."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from faultlib.archive.manifest import Manifest
from faultlib.archive.members import Digest, closing, create_file_at, digest_fd, open_file_at
from faultlib.archive.paths import local_path
from faultlib.errors import ArchiveError, InputError
from faultlib.evidence import layout
from faultlib.readers import inside

Source = Callable[[], AbstractContextManager[Callable[[int], bytes]]]


@dataclass(frozen=True)
class LocalFile:
    """One file of a local run, checked against the manifest: ``name`` relative to the run, ``size``
    in bytes, hex digests, and ``source`` that opens it again (without following links) to send it."""

    name: str
    size: int
    sha256: str
    md5: str
    source: Source


def _fd_source(run_fd: int, name: str) -> Source:
    @contextmanager
    def source() -> Iterator[Callable[[int], bytes]]:
        fd = open_file_at(run_fd, name)
        if fd is None:
            raise ArchiveError(f"{name}: removed from the run while it was being uploaded")
        with closing(fd):
            yield lambda n: os.read(fd, n)

    return source


def _bytes_source(data: bytes) -> Source:
    @contextmanager
    def source() -> Iterator[Callable[[int], bytes]]:
        yield io.BytesIO(data).read

    return source


def local_files(run_fd: int, manifest: Manifest, *, run: str) -> list[LocalFile]:
    """The files to upload, ``manifest.json`` last (the exact bytes that were validated).

    Args:
        run_fd: the run directory, open (see :func:`faultlib.archive.members.open_dir`).
        manifest: its validated manifest.
        run: ``case/run_id`` for messages.

    Raises:
        ArchiveError: a listed file is missing, a symbolic link, not a regular file, or differs
            from the manifest (size or sha256); the message names it. Nothing should be uploaded.
    """
    files = []
    for entry in manifest.files:
        try:
            fd = open_file_at(run_fd, entry.name)
        except ArchiveError as exc:
            raise ArchiveError(f"{run}: {exc}") from None
        if fd is None:
            raise ArchiveError(f"{run}: {entry.name}: listed in the manifest but missing")
        with closing(fd):
            digest = digest_fd(fd, limit=entry.bytes)
        if digest.size != entry.bytes:
            size = f"more than {entry.bytes}" if digest.size > entry.bytes else str(digest.size)
            raise ArchiveError(f"{run}: {entry.name}: differs from the manifest ({size} bytes, manifest says "
                               f"{entry.bytes})")
        if digest.sha256 != entry.sha256:
            raise ArchiveError(f"{run}: {entry.name}: differs from the manifest (sha256)")
        files.append(LocalFile(entry.name, digest.size, digest.sha256, digest.md5, _fd_source(run_fd, entry.name)))
    digest = Digest()
    digest.update(manifest.raw)
    files.append(LocalFile(layout.MANIFEST, digest.size, digest.sha256, digest.md5, _bytes_source(manifest.raw)))
    return files


class Download(AbstractContextManager):
    """Writes a fetched run into ``dest_dir/<case_id>/<run_id>/``, all or nothing.

    Files land in a fresh hidden ``.<run_id>.*.partial`` directory beside the final one, created
    without following links; on success it is renamed into place, on any failure it is removed,
    with the directories this download created. The destination must stay inside ``dest_dir``:
    ``<case_id>`` there may not be a symbolic link.

    Args:
        dest_dir: ``--out``.
        case_id, run_id: plain names (checked by the caller).

    Raises:
        ArchiveError: the destination exists, or ``dest_dir`` cannot be created.
        InputError: the destination would leave ``dest_dir`` (a symbolic link on the way).
    """

    def __init__(self, dest_dir: Path | str, case_id: str, run_id: str):
        self.out = local_path(dest_dir, what="--out directory")
        self.final = inside(self.out, f"{case_id}/{run_id}")
        if os.path.lexists(self.final):
            raise ArchiveError(f"{self.final} already exists: choose another --out directory")
        self.run_id = run_id
        self._created: list[Path] = []
        self.partial: Path | None = None
        self.fd: int | None = None

    def __enter__(self) -> Download:
        missing = [p for p in [self.final.parent, *self.final.parent.parents] if not os.path.lexists(p)]
        try:
            for path in reversed(missing):
                path.mkdir()
                self._created.append(path)
            inside(self.out, self.final.parent.relative_to(self.out))  # nothing swapped in meanwhile
            self.partial = Path(tempfile.mkdtemp(prefix=f".{self.run_id}.", suffix=".partial", dir=self.final.parent))
            self.fd = os.open(self.partial, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as exc:
            self._undo()
            raise ArchiveError(f"cannot create {self.final}: {exc.strerror or exc}") from None
        except InputError:
            self._undo()
            raise
        return self

    def create(self, name: str) -> int:
        """A write descriptor of the new file ``name`` in the download (see :func:`create_file_at`)."""
        return create_file_at(self.fd, name)

    def write(self, name: str, data: bytes) -> None:
        """Write ``data`` as the new file ``name``."""
        with closing(self.create(name)) as fd:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]

    def __exit__(self, exc_type, exc, tb) -> None:
        os.close(self.fd)
        if exc_type is None:
            try:
                umask = os.umask(0o022)
                os.umask(umask)
                os.chmod(self.partial, 0o777 & ~umask)
                os.rename(self.partial, self.final)
                return None
            except OSError as error:
                self._undo()
                raise ArchiveError(f"cannot move the download into {self.final}: {error.strerror}") from None
        self._undo()
        return None

    def _undo(self) -> None:
        if self.partial is not None:
            shutil.rmtree(self.partial, ignore_errors=True)
        for path in reversed(self._created):
            try:
                path.rmdir()
            except OSError:
                break
