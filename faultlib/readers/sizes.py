"""Size bounds on the files faultlib reads, said in units people read, with the one setting that raises them.

Every reader refuses a file (or a JSON line) larger than its bound before parsing it (a 200 MB JSON config
would take minutes and gigabytes). The bounds fit what each file usually is (4 MiB for a config or a source
file, 64 MiB for a feature config, 512 MiB for a table); a user with a larger file they trust raises every
bound at once with ``FAULTLIB_MAX_FILE_BYTES`` (bytes, or a number with ``KiB``/``MiB``/``GiB``/``TiB``,
``K``/``M``/``G``/``T`` meaning the same: ``FAULTLIB_MAX_FILE_BYTES=2GiB``), the way ``FAULTLIB_MAX_COLUMNS``
raises the bound on a table's columns. The variable never lowers a bound: faultlib's own evidence files keep
theirs. A refusal says the size and the bound in those units and the exact setting that would admit the file.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from faultlib.errors import InputError
from faultlib.readers.integers import decimal

#: raises every bound on the size of a file (or a JSON line) that faultlib reads; never lowers one
MAX_FILE_BYTES_ENV = "FAULTLIB_MAX_FILE_BYTES"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"(\d+)\s*(?:([KMGT])(?:I?B)?|B)?", re.IGNORECASE)


def _unit(size: int) -> str:
    return max((u for u in "KMGT" if size >= _UNITS[u]), key=_UNITS.__getitem__, default="")


def human_bytes(size: int) -> str:
    """``size`` in the largest binary unit it fills: ``100 bytes``, ``64 MiB``, ``191.3 MiB``; a rounded value
    is followed by the exact count (``191.3 MiB (200,600,001 bytes)``)."""
    unit = _unit(size)
    if not unit:
        return f"{size} byte{'s' if size != 1 else ''}"
    whole, rest = divmod(size, _UNITS[unit])
    return f"{whole} {unit}iB" if not rest else f"{size / _UNITS[unit]:.1f} {unit}iB ({size:,} bytes)"


def parse_size(raw: str, *, field: str = MAX_FILE_BYTES_ENV) -> int:
    """``2GiB``, ``512M``, ``1048576`` as bytes.

    Raises:
        InputError: not a positive size (naming ``field``, the variable it came from).
    """
    match = _SIZE.fullmatch(raw.strip())
    count = decimal(match[1]) if match else 0
    if count is None:
        raise InputError(f"is a number of {len(match[1]):,} digits, larger than any file: write bytes or a number "
                         "with a unit (2GiB, 512MiB)", field=field)
    size = count * _UNITS[(match[2] or "").upper()] if match else 0
    if size < 1:
        raise InputError(f"is {raw!r}, not a size: write bytes or a number with a unit (2GiB, 512MiB)", field=field)
    return size


def allowed(bound: int) -> int:
    """The bound a reader applies: ``bound``, or ``FAULTLIB_MAX_FILE_BYTES`` where that is set and larger.

    Raises:
        InputError: the variable is set to something that is not a size.
    """
    raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
    return max(bound, parse_size(raw)) if raw else bound


def _suggest(size: int) -> str:
    """The smallest setting at or above ``size`` in the unit :func:`human_bytes` says it in: ``192MiB`` for
    191.3 MiB."""
    unit = _unit(size)
    return f"{math.ceil(size / _UNITS[unit])}{unit + 'iB' if unit else ''}"


class FileTooLarge(InputError):
    """A file or a JSON line over its size bound.

    Args:
        path: the file.
        size: its size in bytes (for a line cut short: the bound it passed, with ``at_least``).
        limit: the bound applied (bytes).
        subject: what is measured (``"line"`` for a JSON line; the file otherwise).
        line: the 1-based line, for a JSON line.
        at_least: the size is a lower bound (the file grew while read; a line was not read to its end).
        advice: what else can be done (a notebook: clear its outputs), said before the setting.
    """

    def __init__(self, path: Path | str, size: int, limit: int, *, subject: str = "", line: int | None = None,
                 at_least: bool = False, advice: str | None = None):
        self.size, self.limit = size, limit
        measured = (f"is longer than {human_bytes(limit)}, the limit" if at_least
                    else f"is {human_bytes(size)}; the limit is {human_bytes(limit)}")
        setting = f"set {MAX_FILE_BYTES_ENV}={_suggest(2 * limit if at_least else size)} (or more) to raise it"
        todo = f"{advice}, or {setting}" if advice else f"if you trust the file, {setting}"
        super().__init__(f"{subject + ' ' if subject else ''}{measured}: {todo}", path=str(path), line=line)


def env_bound(name: str, default: int) -> int:
    """A bound, raised by the environment variable ``name`` (a positive integer) where one is set."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise InputError(f"is {raw!r}, not a positive integer (an environment variable)", field=name)
    return int(raw)
