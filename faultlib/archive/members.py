"""The files of a run directory, opened without ever following a symbolic link.

Every archive reads and writes a run's files through here: each path segment is opened relative
to the directory before it (``openat``) with ``O_NOFOLLOW``, so a symlink anywhere below the run
directory (``dumps -> /etc``, ``traces.jsonl -> ~/.ssh/id_rsa``), or one swapped in between a
check and a read, is refused with an :class:`~faultlib.errors.ArchiveError` naming it, never
followed. Names are ``/``-separated and already checked by :func:`faultlib.readers.safe_relative`.

Calls return raw file descriptors; the caller closes them (``os.close``).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from faultlib.errors import ArchiveError

CHUNK = 1 << 20
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC


@contextmanager
def closing(fd: int) -> Iterator[int]:
    """Close ``fd`` when the block ends."""
    try:
        yield fd
    finally:
        os.close(fd)


LINK = "is a symbolic link: faultlib does not follow links inside a run; replace it with the file itself"


def _why(exc: OSError, name: str, dir_fd: int | None = None, leaf: str | None = None) -> str:
    """Words for an ``open`` failure of ``name`` (``leaf`` in ``dir_fd``): a symlink is named as one."""
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return f"{name}: {LINK}"
    if exc.errno == errno.ENOTDIR:
        if dir_fd is not None and leaf is not None:
            try:
                if stat.S_ISLNK(os.stat(leaf, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                    return f"{name}: {LINK}"
            except OSError:
                pass
        return f"{name}: is not a directory"
    return f"{name}: cannot open: {exc.strerror}"


def open_dir(path: Path | str, parts: tuple[str, ...] | list[str] = ()) -> int:
    """A descriptor of directory ``path/parts...``: ``path`` itself may be reached through a link
    (the user named it), each of ``parts`` may not.

    Raises:
        FileNotFoundError: a part does not exist.
        ArchiveError: a part is a symbolic link or not a directory, or cannot be opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ArchiveError(_why(exc, str(path))) from None
    try:
        return open_dir_at(fd, parts)
    finally:
        os.close(fd)


def open_dir_at(dir_fd: int, parts: tuple[str, ...] | list[str], *, create: bool = False) -> int:
    """A new descriptor of ``dir_fd/parts...`` (created when ``create``), following no link.

    Raises:
        FileNotFoundError: a part does not exist (and ``create`` is false).
        ArchiveError: a part is a symbolic link or not a directory.
    """
    fd = os.dup(dir_fd)
    walked = []
    try:
        for part in parts:
            walked.append(part)
            if create:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                nxt = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                raise
            except OSError as exc:
                raise ArchiveError(_why(exc, "/".join(walked), fd, part)) from None
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_file_at(dir_fd: int, name: str) -> int | None:
    """A read descriptor of the regular file ``dir_fd/name``, or None when it does not exist.

    Raises:
        ArchiveError: ``name`` or a directory on its way is a symbolic link, or it is not a regular
            file (a directory, FIFO, socket or device), or it cannot be read. The message names it.
    """
    *parents, leaf = name.split("/")
    try:
        parent = open_dir_at(dir_fd, parents)
    except FileNotFoundError:
        return None
    except ArchiveError as exc:
        raise ArchiveError(f"{name}: {exc}") from None
    try:
        try:
            fd = os.open(leaf, _READ, dir_fd=parent)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ArchiveError(_why(exc, name, parent, leaf)) from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, socket or device)"
            raise ArchiveError(f"{name}: is {kind}")
        return fd
    finally:
        os.close(parent)


def read_file_at(dir_fd: int, name: str, *, max_bytes: int) -> bytes | None:
    """The bytes of ``dir_fd/name`` (see :func:`open_file_at`), or None when it does not exist.

    Raises:
        ArchiveError: a link, not a regular file, or larger than ``max_bytes``.
    """
    fd = open_file_at(dir_fd, name)
    if fd is None:
        return None
    with closing(fd):
        chunks, total = [], 0
        while chunk := os.read(fd, CHUNK):
            total += len(chunk)
            if total > max_bytes:
                raise ArchiveError(f"{name}: is larger than {max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)


def create_file_at(dir_fd: int, name: str) -> int:
    """A write descriptor of the new file ``dir_fd/name``, its directories created; nothing existing
    is overwritten and no link is followed.

    Raises:
        ArchiveError: the file exists already, or a directory on its way is a link or a file.
    """
    *parents, leaf = name.split("/")
    try:
        parent = open_dir_at(dir_fd, parents, create=True)
    except (ArchiveError, FileNotFoundError) as exc:
        raise ArchiveError(f"{name}: cannot create its directory: {exc}") from None
    try:
        return os.open(leaf, _CREATE, 0o666, dir_fd=parent)
    except FileExistsError:
        raise ArchiveError(f"{name}: written twice (the manifest lists it twice?)") from None
    except OSError as exc:
        raise ArchiveError(_why(exc, name, parent, leaf)) from None
    finally:
        os.close(parent)


class Digest:
    """Size, sha256 and md5 of a byte stream, updated as it passes."""

    def __init__(self) -> None:
        self.size = 0
        self._sha256 = hashlib.sha256()
        self._md5 = hashlib.md5(usedforsecurity=False)

    def update(self, block: bytes) -> None:
        self.size += len(block)
        self._sha256.update(block)
        self._md5.update(block)

    @property
    def sha256(self) -> str:
        return self._sha256.hexdigest()

    @property
    def md5(self) -> str:
        return self._md5.hexdigest()


def digest_fd(fd: int, *, limit: int | None = None) -> Digest:
    """Size, sha256 and md5 of what ``fd`` holds from its current offset; reading stops after
    ``limit + 1`` bytes when ``limit`` is given (enough to tell that it is too large)."""
    digest = Digest()
    while True:
        want = CHUNK if limit is None else min(CHUNK, limit + 1 - digest.size)
        block = os.read(fd, want) if want > 0 else b""
        if not block:
            return digest
        digest.update(block)


def copy_fd(src: int, dst: int, *, limit: int) -> Digest:
    """Copy ``src`` into ``dst`` (at most ``limit + 1`` bytes) and return what passed."""
    digest = Digest()
    while digest.size <= limit:
        block = os.read(src, min(CHUNK, limit + 1 - digest.size))
        if not block:
            break
        digest.update(block)
        view = memoryview(block)
        while view:
            view = view[os.write(dst, view):]
    return digest


class HashingReader:
    """A binary, read-only file object over a ``read(n)`` function that hashes what passes through it
    (what the S3 client reads while uploading)."""

    def __init__(self, read: Callable[[int], bytes]):
        self._read = read
        self.digest = Digest()

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            chunks = []
            while block := self._read(CHUNK):
                chunks.append(block)
            data = b"".join(chunks)
        else:
            data = self._read(size)
        self.digest.update(data)
        return data
