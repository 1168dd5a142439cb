"""Reading a user's file: a regular file, inside its root, not through a symlink, bounded in size."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from faultlib.errors import InputError
from faultlib.readers.sizes import FileTooLarge, allowed

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Bounds applied before and while a document is parsed.

    Attributes:
        max_bytes: largest file accepted, in bytes (default 4 MiB: case.yaml files are a few KB); a reader
            applies the larger of it and ``FAULTLIB_MAX_FILE_BYTES`` (:mod:`faultlib.readers.sizes`).
        max_depth: deepest nesting of mappings/sequences (default 64).
        max_nodes: most nodes after alias expansion (YAML) or values (JSON) (default 200,000).
    """

    max_bytes: int = 4 * MiB
    max_depth: int = 64
    max_nodes: int = 200_000


DEFAULT = Limits()


def inside(root: Path | str, path: Path | str) -> Path:
    """``path`` (absolute, or relative to ``root``) as an absolute path, if it stays inside ``root``
    without passing through a symlink below ``root``.

    Raises:
        InputError: the path leaves ``root`` (``..``, an absolute path elsewhere) or a symlink below
            ``root`` leads somewhere (symlinks are never followed, even to places inside).
    """
    root = Path(os.path.realpath(root))
    target = Path(os.path.normpath(root / path))
    if target != root and not target.is_relative_to(root):
        raise InputError(f"path leaves its directory {root}: use a path inside it", path=str(path))
    probe = root
    for part in target.relative_to(root).parts:
        probe = probe / part
        if probe.is_symlink():
            raise InputError(f"{probe.relative_to(root)} is a symbolic link: faultlib does not follow links "
                             f"inside {root}; replace it with the file itself", path=str(probe))
    return target


def safe_relative(name: str, *, what: str = "name") -> str:
    """A plain relative ``/``-separated name: no absolute path, no ``.``/``..``/empty segment, no NUL,
    no backslash. Used for case ids, run ids and manifest entries.

    Raises:
        InputError: the name could leave the directory it names a place in.
    """
    if not isinstance(name, str) or not name or "\x00" in name or "\\" in name:
        raise InputError(f"{what} {name!r} is not a plain relative name")
    parts = PurePosixPath(name).parts
    if name.startswith("/") or any(p in ("", ".", "..") for p in name.split("/")) or not parts:
        raise InputError(f"{what} {name!r} is not a plain relative name (no '/', '..' or '.' to leave its directory)")
    return name


def read_bytes(path: Path | str, *, limits: Limits = DEFAULT, root: Path | str | None = None) -> bytes:
    """The bytes of a regular file, read without following a symlink.

    Args:
        path: the file.
        limits: ``limits.max_bytes`` bounds the size.
        root: when given, ``path`` must stay inside it (see :func:`inside`).

    Raises:
        InputError: missing, a directory, a symlink, a FIFO/device, larger than ``max_bytes``,
            unreadable, or outside ``root``.
    """
    path = inside(root, path) if root is not None else Path(path)
    fd = _open_regular(path, limits)
    bound = allowed(limits.max_bytes)
    try:
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            total += len(chunk)
            if total > bound:  # grew while being read
                raise FileTooLarge(path, total, bound, at_least=True)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    finally:
        os.close(fd)


class MappedFile:
    """A regular file mapped into memory copy-on-write (:func:`map_file`): ``data`` reads like bytes (slices,
    ``find``, ``len``) and as a file (``read``, ``seek``) without reading the file into memory; writes to it
    never reach the file. ``fd_path`` (``/proc/self/fd/N``) names the very file that was checked, for a library
    that must open it by name (``torch.load(..., mmap=True)``); valid until :meth:`close`."""

    def __init__(self, fd: int, size: int):
        import mmap

        self.fd = fd
        self.size = size
        self.data = mmap.mmap(fd, size, access=mmap.ACCESS_COPY) if size else b""
        self.fd_path = f"/proc/self/fd/{fd}"

    def close(self) -> None:
        """Close the descriptor; the mapping stays alive while anything still uses it (tensors built on it)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "MappedFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def map_file(path: Path | str, *, limits: Limits = DEFAULT, root: Path | str | None = None) -> MappedFile:
    """Map a regular file read without following a symlink, as :func:`read_bytes` checks it, but without reading
    it: memory grows only with what is touched (a 10 GB checkpoint is checkable on a 24 GB machine).

    Raises:
        InputError: as :func:`read_bytes`.
    """
    path = inside(root, path) if root is not None else Path(path)
    fd = _open_regular(path, limits)
    try:
        return MappedFile(fd, os.fstat(fd).st_size)
    except (OSError, ValueError) as exc:
        os.close(fd)
        raise InputError(f"cannot be mapped: {exc}", path=str(path)) from None


def open_nofollow(path: Path) -> int:
    """A read-only descriptor of ``path`` opened without following a symlink (no check of its kind yet).

    Raises:
        InputError: missing, a symbolic link, a name the system cannot open (a NUL byte, too long), unreadable.
    """
    try:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("file not found", path=str(path)) from None
    except ValueError:  # os.open refuses a NUL byte before the system sees the name
        raise InputError("is not a file name: it contains a NUL byte", path=repr(str(path))) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("is a symbolic link: faultlib does not follow links; pass the file itself",
                             path=str(path)) from None
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None


def _open_regular(path: Path, limits: Limits) -> int:
    """A descriptor of ``path`` opened without following a symlink, checked to be a regular file within
    ``limits.max_bytes`` (the caller closes it)."""
    fd = open_nofollow(path)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a directory, not a file", path=str(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputError("is not a regular file (a FIFO, socket or device)", path=str(path))
        if info.st_size > allowed(limits.max_bytes):
            raise FileTooLarge(path, info.st_size, allowed(limits.max_bytes))
    except BaseException:
        os.close(fd)
        raise
    return fd


def decode_text(data: bytes, path: Path | str, encoding: str = "utf-8") -> str:
    """``data`` as text without NUL bytes, in ``encoding`` (UTF-8 unless a Python file declares another).

    Raises:
        InputError: invalid in that encoding, or a NUL byte (with the line where it is).
    """
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        what = "UTF-8" if encoding.startswith("utf-8") else f"{encoding} (as its coding declaration says)"
        raise InputError(f"is not valid {what} (byte 0x{data[exc.start]:02x} at offset {exc.start}): save it as UTF-8",
                         path=str(path), line=line) from None
    if "\x00" in text:
        raise InputError("contains a NUL byte: remove it", path=str(path), line=text.count("\n", 0, text.index("\x00")) + 1)
    return text.removeprefix("\ufeff")


def python_encoding(data: bytes, path: Path | str) -> str:
    """The encoding of Python source ``data`` as Python reads it (PEP 263: a BOM, or a ``# -*- coding: NAME -*-``
    comment on line 1 or 2; UTF-8 otherwise), from :func:`tokenize.detect_encoding`.

    Raises:
        InputError: an unknown encoding, a codec that is no text encoding or not ASCII-compatible (``rot13``,
            ``utf-16``), or a BOM with a declaration of another encoding (Python refuses each).
    """
    import io
    import tokenize

    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data[:4096]).readline)[0]
    except SyntaxError as exc:
        if "invalid or missing" in str(exc):  # undeclared bytes that are not UTF-8: decode_text says where
            return "utf-8"
        bom = " (a UTF-8 BOM and a declaration of another encoding)" if data.startswith(b"\xef\xbb\xbf") else ""
        raise InputError(f"has a coding declaration Python refuses: {exc}{bom}",
                         path=str(path), line=data[:4096].count(b"\n", 0, data.find(b"coding")) + 1) from None
    try:  # a codec that is no text encoding (rot13, hex: LookupError) or not ASCII-compatible (utf-16): Python
        usable = "x = 1\n".encode(encoding).removeprefix(b"\xef\xbb\xbf") == b"x = 1\n"  # refuses both
    except (LookupError, UnicodeError):
        usable = False
    if not usable:
        raise InputError(f"declares the encoding {encoding!r}, not an encoding Python reads source in (it needs a "
                         "text encoding that keeps ASCII as it is): save the file as UTF-8 and drop the declaration",
                         path=str(path), line=data[:4096].count(b"\n", 0, max(data.find(b"coding"), 0)) + 1)
    return encoding


def read_text(path: Path | str, *, limits: Limits = DEFAULT, root: Path | str | None = None) -> str:
    """A regular file's UTF-8 text (see :func:`read_bytes` and :func:`decode_text`); a Python file (``.py``,
    ``.pyw``) in the encoding its coding declaration names (:func:`python_encoding`), as Python runs it."""
    data = read_bytes(path, limits=limits, root=root)
    encoding = python_encoding(data, path) if str(path).endswith((".py", ".pyw")) else "utf-8"
    return decode_text(data, path, encoding)
