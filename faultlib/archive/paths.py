"""Local directories an archive writes into (a file:// root, the spool of an s3:// archive): checked
before a run starts, so that a run never spends minutes only to find nowhere to put its evidence."""

from __future__ import annotations

import os
from pathlib import Path

from faultlib.errors import ArchiveError, InputError
from faultlib.outputs import output_dir

#: kernel pseudo-filesystems: they look like directories but store nothing
PSEUDO_ROOTS = (Path("/proc"), Path("/sys"))


def local_path(text: str | os.PathLike, *, what: str) -> Path:
    """``text`` as an absolute path (``~`` expanded), without resolving it twice later. The path as typed holds no
    symbolic link (:func:`faultlib.outputs.output_dir`'s rule: ``--archive file://LINK`` never writes through it).

    Raises:
        ArchiveError: empty, holds a NUL byte, a component is a symbolic link or a file, or it goes down and
            back up with ``..``.
    """
    raw = os.fspath(text)
    if not raw or "\x00" in raw:
        raise ArchiveError(f"{what} {raw!r} is not a usable path (empty, or a NUL byte in it)")
    try:
        output_dir(raw, what, create=False)
    except InputError as exc:
        raise ArchiveError(str(exc)) from None
    try:
        return Path(os.path.realpath(os.path.expanduser(raw)))
    except (OSError, ValueError) as exc:
        raise ArchiveError(f"{what} {raw!r} is not a usable path: {exc}") from None


def check_writable_dir(path: Path, *, what: str) -> None:
    """``path`` is a writable directory, or can be created as one (nothing is created).

    Args:
        path: an absolute, resolved path (see :func:`local_path`).
        what: how messages name it (``archive directory``, ``spool directory (FAULTLIB_SPOOL)``).

    Raises:
        ArchiveError: it is under ``/proc`` or ``/sys``, it or the nearest existing directory above it
            is a file, or that directory is not writable.
    """
    for pseudo in PSEUDO_ROOTS:
        if path == pseudo or path.is_relative_to(pseudo):
            raise ArchiveError(f"{what} {path} is under {pseudo}, a kernel pseudo-filesystem that stores nothing: "
                               "choose a directory on disk")
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        where = "" if probe == path else f" ({probe} is in the way)"
        raise ArchiveError(f"{what} {path} is not a directory{where}: choose a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        verb = "is not writable" if probe == path else f"cannot be created: {probe} is not writable"
        raise ArchiveError(f"{what} {path} {verb}: choose a directory you can write to")
