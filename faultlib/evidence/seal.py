"""Sealing a finished run: freeze every evidence file, hash it, and write ``manifest.json`` last
(atomically). A run directory without a manifest is incomplete.

API::

    sealed = seal(run_dir, exclude=("run.json", "run.lock"))   # -> Sealed(files, rejected)
    write_manifest(run_dir, run_id=..., case_id=..., files=[*sealed.files, run_json_artifact])

:func:`seal` freezes the bytes as they are now: it copies each regular file (opened with
``O_NOFOLLOW``) into a temporary sibling while hashing it, then renames the copy over the
original. A process that still holds the old file open writes into the unlinked inode and cannot
change what the manifest lists. The copy keeps the file's mode bits and times.

Never archived, each returned as a :class:`Rejected` (name, reason) for the runner to report as an
error finding, and left where it is (evidence is never removed):

- symbolic links (never followed: their target is neither hashed nor read), FIFOs, sockets and
  devices (never opened: opening a FIFO blocks until a writer comes);
- names that are not valid UTF-8 (``os.fsencode`` bytes), or that hold a control character or a
  backslash: no manifest, JSON document or object store can name them faithfully;
- files larger than :attr:`SealLimits.max_file_bytes`, directories nested deeper than
  ``max_depth``, entries beyond ``max_files``, names longer than ``max_name_bytes``; temporary
  files of an interrupted write.

Also here, for the runner's own files in a directory a repro could write into: :func:`claim`
(move whatever occupies a runner-owned name aside), :func:`write_atomic` (temp file, rename;
never through a symlink) and :func:`open_append` (append without following a symlink or opening a
FIFO). Reading a manifest back lives in :mod:`faultlib.archive.manifest`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Callable

from faultlib.evidence import layout
from faultlib.record import Artifact

CHUNK = 1 << 20
MiB = 1 << 20
TMP_PREFIX = ".faultlib-tmp-"
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class SealLimits:
    """Bounds on what sealing reads.

    Attributes:
        max_file_bytes: largest file archived, in bytes (default 4 GiB; a sparse file's apparent size counts).
        max_files: most files archived (default 100,000).
        max_depth: deepest directory level below the run directory (default 32).
        max_rejected: most rejected entries reported one by one; the rest are counted in one entry (default 200).
        max_name_bytes: longest ``/``-separated name in UTF-8 bytes (default 1024: object stores such as S3
            take keys of at most 1024 bytes).
    """

    max_file_bytes: int = 4096 * MiB
    max_files: int = 100_000
    max_depth: int = 32
    max_rejected: int = 200
    max_name_bytes: int = 1024


LIMITS = SealLimits()


@dataclass(frozen=True)
class Rejected:
    """An entry of the run directory that is not archived. ``name`` is printable (bytes that are not
    UTF-8 appear as ``\\xNN``)."""

    name: str
    reason: str
    aside: str | None = None  # the name it was moved aside to (by :func:`claim`)


@dataclass(frozen=True)
class Sealed:
    """What :func:`seal` found: ``files`` (sorted by name) are archived, ``rejected`` are not."""

    files: list[Artifact]
    rejected: list[Rejected]


def printable(name: str) -> str:
    """``name`` with bytes that are not UTF-8 shown as ``\\xNN`` and control characters escaped."""
    from faultlib.text import printable as shown

    return shown(os.fsencode(name).decode("utf-8", "backslashreplace")).replace("\n", "\\n").replace("\t", "\\t")


def _name_problem(name: str) -> str | None:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not valid UTF-8: no manifest can name it; not archived"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name) or "\\" in name:
        return "name holds a control character or a backslash: not archived"
    return None


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "named pipe (FIFO)"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISDIR, "directory")):
        if test(mode):
            return kind
    return "special file"


def _hash_fd(fd: int, limit: int, out: int | None = None) -> tuple[int, str]:
    """(bytes, sha256) of what ``fd`` reads, copied to ``out`` when given; ValueError past ``limit``."""
    digest, total = hashlib.sha256(), 0
    while True:
        block = os.read(fd, CHUNK)
        if not block:
            return total, digest.hexdigest()
        total += len(block)
        if total > limit:
            raise ValueError(f"grew past the limit of {limit} bytes while it was read; not archived")
        digest.update(block)
        view = memoryview(block)
        while out is not None and view:
            view = view[os.write(out, view):]


def _read_regular(dfd: int, name: str, rel: str, limits: SealLimits, freeze: bool) -> Artifact:
    """Hash one regular file (and freeze it: copy, rename over). Raises ValueError/OSError with the reason."""
    fd = os.open(name, _READ, dir_fd=dfd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"turned into a {_kind(info.st_mode)} while sealed; not archived")
        if not freeze:
            return Artifact(rel, *_hash_fd(fd, limits.max_file_bytes))
        tmp = TMP_PREFIX + secrets.token_hex(6)
        try:
            out = os.open(tmp, _CREATE, 0o600, dir_fd=dfd)
        except OSError:  # cannot create a copy here (read-only, full): hash in place
            return Artifact(rel, *_hash_fd(fd, limits.max_file_bytes))
        try:
            try:
                size, digest = _hash_fd(fd, limits.max_file_bytes, out)
                os.fchmod(out, stat.S_IMODE(info.st_mode) & 0o777)
                os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
            finally:
                os.close(out)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException as exc:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
                os.lseek(fd, 0, os.SEEK_SET)  # no room for a copy: hash in place
                return Artifact(rel, *_hash_fd(fd, limits.max_file_bytes))
            raise
        return Artifact(rel, size, digest)
    finally:
        os.close(fd)


def _walk(run_dir: Path, exclude: tuple[str, ...], limits: SealLimits, freeze: bool) -> Sealed:
    files: list[Artifact] = []
    rejected: list[Rejected] = []
    over = 0

    def reject(rel: str, reason: str) -> None:
        nonlocal over
        if len(rejected) < limits.max_rejected:
            rejected.append(Rejected(printable(rel), reason))
        else:
            over += 1

    skip = {layout.MANIFEST, *exclude}
    root = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    stack: list[tuple[int, str, int, list[str]]] = []
    try:
        stack.append((root, "", 0, sorted(os.listdir(root), reverse=True)))
        while stack:
            dfd, prefix, depth, names = stack[-1]
            if not names:
                os.close(stack.pop()[0])
                continue
            name = names.pop()
            rel = prefix + name
            if rel in skip:
                continue
            problem = _name_problem(name)
            if not problem and len(rel.encode("utf-8")) > limits.max_name_bytes:
                problem = f"name longer than {limits.max_name_bytes} bytes: no object store can name it; not archived"
            if problem:
                reject(rel, problem)
                continue
            try:
                info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            mode = info.st_mode
            if name.startswith(TMP_PREFIX):
                reject(rel, "temporary file of an interrupted write; not archived")
            elif stat.S_ISDIR(mode):
                if depth + 1 > limits.max_depth:
                    reject(rel, f"directory nested deeper than {limits.max_depth} levels; not archived")
                    continue
                try:
                    child = os.open(name, _DIR, dir_fd=dfd)
                except OSError as exc:
                    reject(rel, f"directory cannot be opened ({exc.strerror}); not archived")
                    continue
                try:
                    entries = sorted(os.listdir(child), reverse=True)
                except OSError as exc:
                    os.close(child)
                    reject(rel, f"directory cannot be listed ({exc.strerror}); not archived")
                    continue
                stack.append((child, rel + "/", depth + 1, entries))
            elif stat.S_ISLNK(mode):
                try:
                    target = printable(os.readlink(name, dir_fd=dfd))
                except OSError:
                    target = "?"
                reject(rel, f"symbolic link to {target}: not followed, not archived")
            elif not stat.S_ISREG(mode):
                reject(rel, f"{_kind(mode)}: never opened, not archived")
            elif len(files) >= limits.max_files:
                reject(rel, f"more than {limits.max_files} files in the run directory; not archived")
            elif info.st_size > limits.max_file_bytes:
                reject(rel, f"{info.st_size} bytes, over the limit of {limits.max_file_bytes}; not archived")
            else:
                try:
                    files.append(_read_regular(dfd, name, rel, limits, freeze))
                except FileNotFoundError:
                    continue
                except (OSError, ValueError) as exc:
                    reason = str(exc) if isinstance(exc, ValueError) else exc.strerror or str(exc)
                    if isinstance(exc, OSError) and exc.errno == errno.ELOOP:
                        reason = "turned into a symbolic link while sealed: not followed, not archived"
                    reject(rel, reason if "archived" in reason else f"cannot be read ({reason}); not archived")
    finally:
        for entry in stack:
            os.close(entry[0])
    if over:
        rejected.append(Rejected("...", f"{over} more entries not archived (only the first "
                                        f"{limits.max_rejected} are named)"))
    return Sealed(sorted(files, key=lambda a: a.name), rejected)


def seal(run_dir: Path, *, exclude: tuple[str, ...] = (), limits: SealLimits = LIMITS) -> Sealed:
    """Freeze and hash every regular file under ``run_dir`` but ``exclude`` (top-level or
    ``/``-separated names) and the manifest; see the module docstring.

    Returns:
        :class:`Sealed`: the archived files (name, bytes, sha256), sorted by name, and the rejected entries.

    Raises:
        OSError: ``run_dir`` itself cannot be opened.
    """
    return _walk(Path(run_dir), tuple(exclude), limits, freeze=True)


def artifacts(run_dir: Path, *, exclude: tuple[str, ...] = (), limits: SealLimits = LIMITS) -> list[Artifact]:
    """Every archivable file under ``run_dir`` but ``exclude`` and the manifest, hashed in place
    (nothing is copied; symlinks and special files are skipped as :func:`seal` rejects them)."""
    return _walk(Path(run_dir), tuple(exclude), limits, freeze=False).files


def sha256_file(path: Path) -> str:
    """The sha256 of ``path``'s bytes (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def claim(run_dir: Path, name: str, *, keep_regular: bool = False) -> Rejected | None:
    """Make ``name`` (a top-level, runner-owned name such as ``run.json``) free for the runner: whatever a
    repro put there is renamed aside to ``NAME.repro-XXXXXX`` (kept as evidence) and reported.

    Args:
        keep_regular: leave a regular file in place (the runner appends to it).

    Returns:
        What was moved aside (for a finding), or None when the name was free.
    """
    path = Path(run_dir) / name
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if keep_regular and stat.S_ISREG(info.st_mode):
        return None
    aside = f"{name}.repro-{secrets.token_hex(3)}"
    os.rename(path, Path(run_dir) / aside)
    kind = "regular file" if stat.S_ISREG(info.st_mode) else _kind(info.st_mode)
    return Rejected(name, f"a {kind} was already there (not written by the runner); moved aside to {aside}", aside)


def write_atomic(run_dir: Path, name: str, data: bytes, *, sync: bool = False) -> Artifact:
    """Write ``run_dir/name`` (top-level) through a temporary sibling and a rename, so that a symlink,
    FIFO or directory a repro left there is never written through; such an entry must have been
    :func:`claim`-ed first (a directory cannot be replaced). Returns the file's artifact."""
    run_dir = Path(run_dir)
    dfd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        tmp = TMP_PREFIX + secrets.token_hex(6)
        fd = os.open(tmp, _CREATE, 0o644, dir_fd=dfd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise
        if sync:
            os.fsync(dfd)
    finally:
        os.close(dfd)
    return Artifact(name, len(data), hashlib.sha256(data).hexdigest())


def open_append(run_dir: Path, name: str, on_claim: Callable[[Rejected], None] | None = None) -> BinaryIO:
    """Open ``run_dir/name`` (top-level) for appending, created if missing, never through a symlink
    and never blocking on a FIFO: whatever is not a regular file there is :func:`claim`-ed first
    (``on_claim`` is told)."""
    path = Path(run_dir) / name
    for _ in range(3):
        moved = claim(run_dir, name, keep_regular=True)
        if moved and on_claim:
            on_claim(moved)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                         0o644)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EEXIST):
                continue  # swapped since the claim: claim again
            raise
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.set_blocking(fd, True)
            return os.fdopen(fd, "ab")
        os.close(fd)
    raise OSError(errno.EIO, f"{path} keeps being replaced by something that is not a regular file")


def create_empty(run_dir: Path, name: str) -> None:
    """Create ``run_dir/name`` as an empty file unless something (of any kind) is already there."""
    try:
        os.close(os.open(Path(run_dir) / name, _CREATE, 0o644))
    except FileExistsError:
        pass


def write_manifest(run_dir: Path, *, run_id: str, case_id: str, files: list[Artifact] | None = None) -> list[Artifact]:
    """Write ``manifest.json`` atomically (temp file, fsync, rename) and return what it lists.

    Args:
        files: the entries (normally :func:`seal`'s files plus ``run.json``); default: every
            archivable file hashed in place (:func:`artifacts`).
    """
    files = sorted(artifacts(run_dir) if files is None else files, key=lambda a: a.name)
    body = {"manifest_version": 1, "case": case_id, "run_id": run_id,
            "files": [{"name": a.name, "bytes": a.bytes, "sha256": a.sha256} for a in files]}
    claim(run_dir, layout.MANIFEST, keep_regular=True)
    write_atomic(run_dir, layout.MANIFEST, json.dumps(body, indent=2).encode(), sync=True)
    return files
