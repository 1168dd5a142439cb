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

Run directories have their own writer (:mod:`faultlib.evidence.seal`): this one is for files outside them.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path
from faultlib.errors import InputError

__all__ = ["OutputFile", "output_file"]


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
        tmp = self.path.parent / f".{self.path.name[:64]}.{uuid.uuid4().hex[:12]}.tmp"  # short: NAME_MAX is 255
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise self._error(f"cannot be written: {exc.strerror}") from None
        return len(data)

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
    if parents and not os.path.lexists(parent):
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise refuse(f"its directory cannot be created ({exc.strerror or exc})") from None
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
