"""The top-level names an installed distribution provides, read from its metadata without building a path per file.

A distribution says which top-level packages it installs in ``top_level.txt`` (setuptools); a wheel built by another
backend often has none, and then its ``RECORD`` does (PEP 376/627: one CSV row per installed file, the path first,
relative to the site directory): the first part of each ``.py`` file's path, the ``.py`` removed for a module.
:attr:`importlib.metadata.Distribution.files` answers that too, but builds a :class:`pathlib.PurePosixPath` for every
row (hash and size parsed besides): stop 49's profile of ``check blocking`` with the installed libraries followed found
it half the time spent reading the environment's metadata. :func:`top_level_names` reads the rows itself and gives the
same names as ``{str(f).split("/")[0].removesuffix(".py") for f in dist.files[:LIMIT] if str(f).endswith(".py")}``:
a path as :class:`~pathlib.PurePosixPath` prints it drops empty and ``.`` parts, and keeps a leading ``/``
(:func:`_first_part`, :func:`_is_module_file`). A distribution without ``RECORD`` (an ``.egg-info``), or a row
:attr:`~importlib.metadata.Distribution.files` would refuse, is answered by ``dist.files`` itself.
"""

from __future__ import annotations

import csv

__all__ = ["LIMIT", "top_level_names"]

#: the files of a distribution read for its top-level names (the first ones listed)
LIMIT = 2000


def top_level_names(dist) -> set[str] | list[str]:
    """The top-level names ``dist`` (an :class:`importlib.metadata.Distribution`) installs: ``top_level.txt``'s words,
    else those of its first :data:`LIMIT` ``.py`` files (see the module docstring)."""
    declared = (dist.read_text("top_level.txt") or "").split()
    if declared:
        return declared
    record = dist.read_text("RECORD")
    rows = list(csv.reader(record.splitlines())) if record else None
    if rows is None or not all(1 <= len(row) <= 3 for row in rows):
        return {str(f).split("/")[0].removesuffix(".py") for f in (dist.files or [])[:LIMIT]
                if str(f).endswith(".py")}
    return {_first_part(row[0]).removesuffix(".py") for row in rows[:LIMIT] if _is_module_file(row[0])}


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part and part != "."]


def _is_module_file(path: str) -> bool:
    """Whether ``str(PurePosixPath(path))`` ends with ``.py``: its last part that is not empty or ``.`` does."""
    parts = _parts(path)
    return bool(parts) and parts[-1].endswith(".py")


def _first_part(path: str) -> str:
    """``str(PurePosixPath(path)).split("/")[0]`` for a path with a part: empty for an absolute path."""
    return "" if path.startswith("/") else _parts(path)[0]
