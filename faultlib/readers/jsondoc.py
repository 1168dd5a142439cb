"""JSON and JSON Lines, hardened: bounded size and depth, finite numbers, no duplicate keys.

``json.loads`` accepts ``NaN``, ``Infinity`` and ``1e999`` (which becomes ``inf``), silently keeps the
last of two equal keys, and recurses once per nesting level; this module refuses the first three
with the file and line (``nonfinite=True`` keeps ``NaN`` and ``±Infinity``, as Python's ``json.dumps`` writes
them, for documents where they are data; ``1e999`` stays refused), and bounds the last. The parser's hooks are not told where they are, so the line of a
refused number or key is found afterwards by :func:`_refused_line`, on the error path only.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from faultlib.errors import InputError
from faultlib.readers.files import DEFAULT, Limits, MiB, inside, open_nofollow
from faultlib.readers.sizes import FileTooLarge, allowed

INT64 = 1 << 63
#: JSON Lines evidence: one line (an OTLP batch, a finding) up to 64 MiB, the file up to 4 GiB
LINES = Limits(max_bytes=64 * MiB, max_depth=64, max_nodes=5_000_000)
LINES_FILE_MAX_BYTES = 4096 * MiB


class _Refused(ValueError):
    pass


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text} is out of range (not finite)")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 19:
        raise _Refused(f"integer {text[:24]}... is out of range (signed 64-bit)")
    value = int(text)
    if not -INT64 <= value < INT64:
        raise _Refused(f"integer {text} is out of range (signed 64-bit)")
    return value


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number: use a finite number or null")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key!r}")
        out[key] = value
    return out


#: JSON's tokens, in order (a string whole, escapes included); whitespace and anything else is skipped
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:]|-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def _refused(token: str, nonfinite: bool = False) -> bool:
    """Whether the parse hooks refuse the number or constant ``token``."""
    try:
        if token in ("NaN", "Infinity", "-Infinity"):
            if not nonfinite:
                _constant(token)
        elif any(c in token for c in ".eE"):
            _float(token)
        else:
            _int(token)
    except _Refused:
        return True
    return False


def _refused_line(text: str, nonfinite: bool = False) -> int | None:
    """The 1-based line of the first thing the parse hooks refuse in ``text`` (a document that parses as JSON
    otherwise), in the order the parser meets them: a number or constant where it stands, a duplicate key when its
    object closes (``object_pairs_hook`` runs then) at the line of the key's second occurrence. None when none is
    found."""
    stack: list[tuple[set[str], list[int]] | None] = []  # per open object: its keys, the line of its duplicate
    previous = None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token == ":" and previous is not None and previous.group().startswith('"') and stack and stack[-1]:
            keys, duplicate = stack[-1]
            key = json.loads(previous.group())
            if key in keys and not duplicate:
                duplicate.append(text.count("\n", 0, previous.start()) + 1)
            keys.add(key)
        elif token == "{":
            stack.append((set(), []))
        elif token == "[":
            stack.append(None)
        elif token in "}]":
            closed = stack.pop() if stack else None
            if closed and closed[1]:
                return closed[1][0]
        elif not token.startswith('"') and token != ":" and _refused(token, nonfinite):
            return text.count("\n", 0, match.start()) + 1
        previous = match
    return None


def _check_shape(value: Any, limits: Limits) -> str | None:
    """Why ``value`` is too deep or too large, or None (iterative: no recursion)."""
    stack, nodes = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            return f"has more than {limits.max_nodes} values"
        if isinstance(item, (dict, list)):
            if depth > limits.max_depth:
                return f"is nested more than {limits.max_depth} levels deep"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def load_json(data: bytes | str, path: Path | str, *, line: int | None = None, limits: Limits = DEFAULT,
              nonfinite: bool = False) -> Any:
    """Parse one JSON document.

    Args:
        data: the document (bytes must be UTF-8; one leading byte order mark is ignored, as ``read_text`` does).
        path: the file it came from (for messages).
        line: for JSON Lines, the 1-based line ``data`` is; errors then name it.
        limits: size, depth and value-count bounds.
        nonfinite: keep ``NaN``, ``Infinity`` and ``-Infinity`` as floats instead of refusing them.

    Raises:
        InputError: not UTF-8, not JSON, too large or deep, a non-finite or out-of-range number, a
            duplicate key (with the line and column where the parser found it).
    """
    size = len(data)
    if size > allowed(limits.max_bytes):
        raise FileTooLarge(path, size, allowed(limits.max_bytes), subject="line" if line else "", line=line)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"is not valid UTF-8 (offset {exc.start})", path=str(path),
                             line=line if line is not None else data.count(b"\n", 0, exc.start) + 1) from None
    data = data.removeprefix("\ufeff")  # a UTF-8 BOM (Windows editors, PowerShell): RFC 8259 lets parsers ignore it
    try:
        value = json.loads(data, parse_float=_float, parse_int=_int, parse_constant=float if nonfinite else _constant,
                           object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=str(path), line=where) from None
    except _Refused as exc:
        raise InputError(f"invalid JSON: {exc}", path=str(path), line=line or _refused_line(data, nonfinite)) from None
    except RecursionError:
        raise InputError(f"invalid JSON: nested more than {limits.max_depth} levels deep", path=str(path),
                         line=line) from None
    except ValueError as exc:  # e.g. an integer literal longer than Python's digit limit
        raise InputError(f"invalid JSON: {exc}", path=str(path), line=line) from None
    problem = _check_shape(value, limits)
    if problem:
        raise InputError(f"invalid JSON: {problem}", path=str(path), line=line)
    return value


def load_json_file(path: Path | str, *, limits: Limits = DEFAULT, root: Path | str | None = None) -> Any:
    """Read (see :func:`faultlib.readers.files.read_bytes`) and parse a JSON file."""
    from faultlib.readers.files import read_bytes

    return load_json(read_bytes(path, limits=limits, root=root), path, limits=limits)


@dataclass(frozen=True)
class JsonLine:
    """One line of a JSON Lines file: ``value`` when it parsed, else ``error`` says why (with the line)."""

    number: int
    value: Any = None
    error: InputError | None = None


def iter_json_lines(path: Path | str, *, limits: Limits = LINES, root: Path | str | None = None,
                    max_file_bytes: int = LINES_FILE_MAX_BYTES, nonfinite: bool = False) -> Iterator[JsonLine]:
    """Every non-blank line of a JSON Lines file, parsed on its own: a bad line is reported
    (``JsonLine.error``) and the next one is read. A missing file yields nothing. ``nonfinite``: as in
    :func:`load_json`.

    Raises:
        InputError: the file cannot be opened safely (a symlink, not a regular file, outside
            ``root``) or is larger than ``max_file_bytes``. Problems inside lines are yielded.
    """
    path = inside(root, path) if root is not None else Path(path)
    try:
        fd = open_nofollow(path)
    except InputError:
        if not os.path.lexists(path) and "\x00" not in str(path):
            return
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise InputError(f"is {what}, not a JSON Lines file", path=str(path))
    with os.fdopen(fd, "rb") as fh:
        if info.st_size > allowed(max_file_bytes):
            raise FileTooLarge(path, info.st_size, allowed(max_file_bytes))
        number, line_bound = 0, allowed(limits.max_bytes)
        while True:
            raw = fh.readline(line_bound + 1)
            if not raw:
                return
            number += 1
            if len(raw) > line_bound and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # skip the rest of the oversized line
                    raw = fh.readline(1 << 20)
                yield JsonLine(number, error=FileTooLarge(path, line_bound + 1, line_bound, subject="line", line=number,
                                                          at_least=True))
                continue
            if not raw.strip():
                continue
            try:
                yield JsonLine(number, value=load_json(raw, path, line=number, limits=limits, nonfinite=nonfinite))
            except InputError as exc:
                yield JsonLine(number, error=exc)
