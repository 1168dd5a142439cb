"""Per-run locks: two processes never flush or repair the same run directory at once.

The lock is ``flock(LOCK_EX)`` on the run directory itself (no lock file to clean up): it is released
when the holder closes the descriptor or dies, even by SIGKILL. A process that finds the directory
locked skips it ("being flushed by another process"); one that gets the lock after the holder
removed the directory (the run was flushed meanwhile) is told that it is gone.
"""

from __future__ import annotations

import enum
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from faultlib.archive.members import open_dir


class Lock(str, enum.Enum):
    HELD = "held"   # this process holds the lock; the directory is still there
    BUSY = "busy"   # another process holds it
    GONE = "gone"   # the directory no longer exists (another process finished with it)


BUSY_REASON = "being flushed by another process"


@contextmanager
def run_lock(run_dir: Path, *, wait: bool = False) -> Iterator[tuple[Lock, int | None]]:
    """Lock ``run_dir`` for the block: yields ``(state, fd)``; ``fd`` (the directory, opened without
    following a link) is set only when ``state`` is :attr:`Lock.HELD`.

    Args:
        run_dir: the run directory.
        wait: block until the lock is free instead of yielding :attr:`Lock.BUSY`.

    Raises:
        ArchiveError: ``run_dir`` is a symbolic link or not a directory.
    """
    run_dir = Path(run_dir)
    try:
        fd = open_dir(run_dir.parent, [run_dir.name])
    except FileNotFoundError:
        yield Lock.GONE, None
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield Lock.BUSY, None
            return
        try:
            now = os.stat(run_dir, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        held = os.fstat(fd)
        if now is None or (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or held.st_nlink == 0:
            yield Lock.GONE, None
            return
        yield Lock.HELD, fd
    finally:
        os.close(fd)
