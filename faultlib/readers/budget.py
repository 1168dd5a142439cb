"""A time budget a reader stops at between blocks (a Parquet row group, a block of Arrow's CSV reader).

A reader given a ``deadline`` (a ``time.monotonic()`` value) checks it before each block and, once it has passed,
raises :class:`ReadCut` instead of reading on: the caller (``check drift --budget``) reports the analysis
incomplete, naming the file and how far the reading got, instead of reading a huge file whole before its budget
is looked at. Formats read in one piece (JSON, NPY/NPZ, a CSV pandas reads) are not cut: the caller's own checks
after reading see the spent budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class ReadCut(Exception):
    """The budget ran out while ``path`` was read. ``done``/``total``: blocks read of the file's (``total`` None
    where a streaming reader cannot know it), ``unit`` what a block is, ``columns`` the names the header or schema
    gave (every one of them unread)."""

    path: str
    done: int
    total: int | None
    unit: str
    columns: list[str]

    def __str__(self) -> str:
        of = f" of {self.total:,}" if self.total is not None else ""
        return f"{self.path}: read {self.done:,}{of} {self.unit} before the time budget ran out"


def check(deadline: float | None, path, done: int, total: int | None, unit: str, columns: list[str]) -> None:
    """Raise :class:`ReadCut` when ``deadline`` has passed (never when it is None)."""
    if deadline is not None and time.monotonic() >= deadline:
        raise ReadCut(str(path), done, total, unit, list(columns))


__all__ = ["ReadCut", "check"]
