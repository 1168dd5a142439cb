"""Where faultlib keeps what it can rebuild (ONNX spec index and kernel registry, torch build facts, the digits
split): one directory per user, never evidence.

The directory is ``$FAULTLIB_CACHE_DIR``, else ``$XDG_CACHE_HOME/faultlib`` (the XDG Base Directory
Specification), else ``~/.cache/faultlib``. Every reader of it treats a missing, corrupt or unwritable cache
as empty: the cached thing is rebuilt, and nothing fails for want of a cache. A cached JSON document is written with
:func:`write_json` (a temporary name renamed into place: atomic on POSIX, so concurrent writers each leave a whole
file) and read with :func:`read_json` (bounded, no symbolic link, ``None`` for anything that is not whole JSON).
A cache that keeps one file per key (:mod:`faultlib.detect.data.leakage.repocache`) is kept bounded with
:func:`prune`: the least recently used files go first once there are too many or they are too large together.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["cache_dir", "prune", "read_json", "write_json"]


def cache_dir() -> Path | None:
    """The cache directory (not created here); None when there is none to use (no home directory)."""
    if os.environ.get("FAULTLIB_CACHE_DIR"):
        return Path(os.environ["FAULTLIB_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # expanduser found no home
        return None
    return Path(base) / "faultlib"


def write_json(path: Path, data: Any) -> None:
    """``data`` as JSON at ``path``, written to a temporary name and renamed (atomic on POSIX); a read-only or full
    cache directory is no error (the thing is used, just not kept)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)  # type: ignore[possibly-undefined]
        except (OSError, NameError):
            pass


def read_json(path: Path, limit: int = 64 << 20) -> Any | None:
    """The JSON document at ``path``; None when it is missing, unreadable, a symbolic link, larger than ``limit``
    bytes or not JSON."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(limit + 1)
        return json.loads(raw) if len(raw) <= limit else None
    except (OSError, ValueError):
        return None


def prune(folder: Path, prefix: str, *, max_files: int, max_bytes: int) -> None:
    """Remove the oldest (by modification time: a reader marks a hit with :func:`os.utime`) regular files of
    ``folder`` whose names start with ``prefix`` until at most ``max_files`` are left, together at most ``max_bytes``
    bytes. Symbolic links and other entries are left alone (never followed); a file another process removed first,
    or one that cannot be removed, is no error.
    """
    kept: list[tuple[int, str, int]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and entry.is_file(follow_symlinks=False):
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    kept.append((st.st_mtime_ns, entry.path, st.st_size))
    except OSError:
        return
    kept.sort(reverse=True)  # the newest first
    total = 0
    for index, (_, path, size) in enumerate(kept):
        total += size
        if index >= max_files or total > max_bytes:
            try:
                os.unlink(path)
            except OSError:
                pass
