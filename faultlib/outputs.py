"""Files the user names for output (``--out``, ``--junit``, ``--report``, ``--png``): one writer for all.

An output target is checked when the command starts, before any work (:func:`output_file`), and written
once at the end (:meth:`OutputFile.write_bytes`):

- a **regular file** or a **new name** in an existing directory is written atomically: a temp file in the
  same directory, then ``os.replace`` (a reader never sees half a file); the directory must let us
  create a file (tried at the check, so ``--out /proc/x`` fails at once, not after the work);
- a **FIFO** or a **character device** (``/dev/stdout``, ``/dev/null``, a pipe a CI step reads) is opened
  and written as a stream, never renamed over: the device node stays what it was;
- a **symbolic link**, a **directory**, a **socket** or **block device**, a **read-only** regular file, or a
  name whose directory does not exist is refused with :class:`~faultlib.errors.InputError` (exit 2)
  naming the option.

Directories (:func:`output_dir`: ``new --out``, ``--archive file://DIR``, ``--dump-dir``, the spool, the
directories of a file target above) follow one rule, **the path as typed holds no link**:

- each component of the path the user typed is opened without following links (``openat`` +
  ``O_NOFOLLOW``, created one by one when missing); a component that is a **symbolic link** is refused with
  exit 2, naming the link and where it points, and saying which real path to name instead (a cloned
  repository's ``cases -> /etc`` never routes a write outside it). What the user did not type is trusted:
  the current directory for a relative path, the home directory for ``~``;
- a path that goes **down and back up** (``reports/../../etc``) is refused: it looks like it is inside a
  directory it is not in (write its normal form); a leading ``..`` (``../reports``) is plain and kept;
- a component that is a file, or a directory that cannot be entered or written, is refused naming it.

Caches (``~/.cache/faultlib``) are not named by the user: they are written by temp file and rename, never
through a link at the file itself, and a failure there is no error. Run directories have their own writer
(:mod:`faultlib.evidence.seal`): this one is for files and directories outside them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from faultlib.errors import InputError

__all__ = ["OutputFile", "open_new", "output_dir", "output_file", "replace_file"]


@dataclass(frozen=True)
class OutputFile:
    """A checked output target (make it with :func:`output_file`).

    Attributes:
        path: the target as given.
        option: the option that named it (``--out``), for messages.
        stream: True for a FIFO or character device (written in place), False for a file replaced atomically.
    """

    path: Path
    option: str
    stream: bool

    def __str__(self) -> str:
        return str(self.path)

    def write_text(self, text: str) -> int:
        """Write ``text`` as UTF-8; returns the bytes written (see :meth:`write_bytes`)."""
        return self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes) -> int:
        """Write ``data``: atomically to a regular file, as a stream to a FIFO or device.

        Raises:
            InputError: the target changed since the check (became a link, a directory...), or the OS refused.
        """
        if output_file(self.path, self.option, probe=False).stream:
            return self._stream(data, os.O_WRONLY)
        try:
            return replace_file(self.path, data)
        except OSError as exc:
            raise self._error(f"cannot be written: {exc.strerror}") from None

    def append_text(self, text: str) -> int:
        """Append ``text`` (UTF-8): to the end of a regular file (created when missing), or to a FIFO or device
        as a stream; never through a link (``$GITHUB_STEP_SUMMARY`` is appended to, not replaced).

        Raises:
            InputError: the target changed since the check, or the OS refused.
        """
        stream = output_file(self.path, self.option, probe=False).stream
        return self._stream(text.encode("utf-8"), os.O_WRONLY | (0 if stream else os.O_APPEND | os.O_CREAT))

    def _stream(self, data: bytes, flags: int) -> int:
        """Open the target itself (never through a link) with ``flags`` and write ``data`` to it."""
        try:
            fd = os.open(self.path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise self._error(f"cannot be opened for writing: {exc.strerror}") from None
        try:
            _write_all(fd, data)
        except OSError as exc:
            raise self._error(f"cannot be written: {exc.strerror}") from None
        finally:
            os.close(fd)
        return len(data)

    def _error(self, message: str) -> InputError:
        return InputError(message, path=str(self.path), field=self.option)


def replace_file(path: str | Path, data: bytes, *, fsync: bool = True) -> int:
    """Write ``data`` to ``path`` atomically: a new temp file beside it (``O_EXCL | O_NOFOLLOW``: never an
    existing file or a link planted at its name), then ``os.replace`` (a link at ``path`` is replaced, never
    written through). The one way faultlib replaces a file outside a run directory.

    Returns:
        The bytes written.

    Raises:
        OSError: the directory refused the temp file or the rename (the temp file is removed).
    """
    path = Path(path)
    tmp = path.parent / f".{path.name[:64]}.{uuid.uuid4().hex[:12]}.tmp"  # short: NAME_MAX is 255
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            _write_all(fd, data)
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    return len(data)


def open_new(path: str | Path) -> BinaryIO:
    """``path`` opened for writing in binary (created or truncated), never through a link planted at its name
    (``O_NOFOLLOW``): for large streams (a ``torch.save`` dump) that :func:`replace_file` would hold in memory.

    Raises:
        OSError: ``ELOOP`` when ``path`` is a symbolic link, or what the OS says.
    """
    return open(path, "wb", opener=lambda name, flags: os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def output_file(path: str | Path, option: str = "--out", *, probe: bool = True, parents: bool = False,
                reads: tuple[str | Path, ...] = ()) -> OutputFile:
    """Check ``path`` as an output target named by ``option`` (see the module docstring).

    Args:
        path: the target.
        option: the option's name, for messages.
        probe: create and remove a file in the target's directory to prove it can be written (the check a
            command makes when it starts).
        parents: create the target's missing parent directories (``--junit reports/all.xml``).
        reads: the files and directories the command reads (a catalog, a script): the target may be none of
            them and lie inside none of them (``regress --report cases/x/case.yaml`` replaced a case.yaml).

    Returns:
        The :class:`OutputFile` to write at the end.

    Raises:
        InputError: a symbolic link, directory, socket, block device or read-only file, a missing
            directory, a directory where no file can be created, or one of ``reads`` (naming ``option``).
    """
    path = Path(path)

    def refuse(message: str) -> InputError:
        return InputError(message, path=str(path), field=option)

    target = Path(os.path.realpath(path))
    for source in reads:
        source = Path(os.path.realpath(source))
        if target == source or target.is_relative_to(source) and source.is_dir():
            what = "is a file" if target == source else f"is inside {source}, which"
            raise refuse(f"{what} this command reads: {option} would replace the input; write it elsewhere")

    if len(os.fsencode(path.name)) > 255:
        raise refuse(f"its name is {len(os.fsencode(path.name))} bytes long; a file name is at most 255 bytes")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise refuse(f"cannot be checked: {exc.strerror}") from None
    if info is not None:
        mode = info.st_mode
        if stat.S_ISLNK(mode):
            raise refuse(f"is a symbolic link: {option} must name the file itself (links are never written through)")
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            return OutputFile(path, option, stream=True)
        if stat.S_ISDIR(mode):
            raise refuse(f"is a directory: {option} takes a file name")
        if not stat.S_ISREG(mode):
            raise refuse(f"is not a regular file, FIFO or character device (a socket or block device): "
                         f"choose another {option}")
        if not mode & 0o222:  # mode bits, not access(): root may write anything
            raise refuse("is read-only: not replaced")
    parent = path.parent
    output_dir(parent, option, create=parents)  # no link, no down-and-up on the way
    if not parent.is_dir():
        what = "is not a directory" if os.path.lexists(parent) else "does not exist"
        raise refuse(f"{parent} {what}: create the directory first, or choose another {option}")
    if probe:
        trial = parent / f".{path.name[:64]}.{uuid.uuid4().hex[:12]}.probe"
        try:
            os.close(os.open(trial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
            os.unlink(trial)
        except OSError as exc:
            raise refuse(f"cannot be written there ({parent}: {exc.strerror})") from None
    return OutputFile(path, option, stream=False)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def output_dir(path: str | Path, option: str = "--out", *, create: bool = True) -> Path:
    """Check (and with ``create``, make) the directory ``path`` that ``option`` names for writing.

    The rule is the module docstring's: every component of ``path`` as typed is walked with ``openat`` and
    ``O_NOFOLLOW`` (so a link swapped in during the walk is refused too) and created when missing.

    Args:
        path: the directory as the user typed it (``~`` allowed).
        option: the option or variable that named it, for messages.
        create: create the missing components (``mkdir``, mode 0o777 less the umask); otherwise stop at the
            first missing one (the caller says whether a missing directory is an error).

    Returns:
        ``path`` with ``~`` expanded.

    Raises:
        InputError: a component is a symbolic link, a file, or cannot be entered or created; the path
            holds a NUL byte, is empty, or goes down and back up with ``..``. The message names the component.
    """
    raw = os.fspath(path)

    def refuse(message: str, where: str = raw) -> InputError:
        return InputError(message, path=where, field=option)

    if not raw or "\x00" in raw:
        raise refuse("is not a usable directory (empty, or a NUL byte in it)")
    if raw.startswith("~"):
        head, _, rest = raw.partition("/")
        anchor, shown = os.path.realpath(os.path.expanduser(head)), head
    else:
        anchor, rest, shown = ("/" if raw.startswith("/") else "."), raw, ("/" if raw.startswith("/") else "")
    parts = [p for p in rest.split("/") if p not in ("", ".")]
    named = False
    for part in parts:
        if part == ".." and named:
            raise refuse(f"goes down and back up with '..' (it is {os.path.normpath(raw)}): "
                         f"name {os.path.normpath(raw)} itself")
        named = named or part != ".."
    try:
        fd = os.open(anchor, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as exc:
        raise refuse(f"cannot be entered: {exc.strerror}") from None
    walked = shown
    try:
        for part in parts:
            walked = os.path.join(walked, part)
            try:
                nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    break
                try:
                    with contextlib.suppress(FileExistsError):  # another process (a rank) made it meanwhile
                        os.mkdir(part, 0o777, dir_fd=fd)
                    nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a link or file swapped in meanwhile
                        raise _component_error(exc, fd, part, walked, raw, refuse) from None
                    raise refuse(f"cannot be created ({walked}: {exc.strerror})") from None
            except OSError as exc:
                raise _component_error(exc, fd, part, walked, raw, refuse) from None
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)
    return Path(os.path.expanduser(raw))


def _component_error(exc: OSError, dir_fd: int, part: str, walked: str, raw: str, refuse) -> InputError:
    """Words for a component of an output directory that could not be opened as a directory."""
    try:
        mode = os.stat(part, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        mode = 0
    if stat.S_ISLNK(mode):
        target = os.readlink(part, dir_fd=dir_fd)
        real = os.path.realpath(os.path.expanduser(raw))
        return refuse(f"{walked} is a symbolic link (to {target}): faultlib never writes through a link; "
                      f"name the real directory ({real}) if you mean it")
    if mode and not stat.S_ISDIR(mode):
        return refuse(f"is not a directory ({walked} is in the way): choose another path")
    return refuse(f"{walked} cannot be entered: {exc.strerror}")
