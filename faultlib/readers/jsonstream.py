"""Large JSON read as a stream, hardened like :mod:`faultlib.readers.jsondoc`: memory bounded by the largest value a
caller asks for, not by the file.

- :func:`open_stream`: a regular file (no symlink, at most ``limits.max_bytes`` on disk), gunzipped when it starts
  with the gzip magic bytes (all members; at most ``max_decompressed`` bytes out), a leading UTF-8 byte order mark
  dropped; it counts the lines it hands out, so an error names the line it was read on (to the chunk: a parser
  reads 64 KiB ahead, so the line is where the reading stood, at or after the fault).
- :func:`events`: ijson's event stream of one document (``(prefix, event, value)``, prefixes like
  ``resourceSpans.item.scopeSpans``), refusing what :func:`~faultlib.readers.jsondoc.load_json` refuses: nesting
  deeper than ``limits.max_depth``, a duplicate key, a number that is not finite (``NaN``, ``Infinity``:
  not JSON; ``1e999``), an integer outside signed 64 bits, invalid UTF-8, trailing data.
- :func:`build`: the value that starts at an event, at most ``limits.max_nodes`` values.

Errors are :class:`~faultlib.errors.InputError` (exit 2) with the file and line.
"""

from __future__ import annotations

import gzip
import math
import os
import zlib
from collections.abc import Iterator
from typing import Any

from faultlib.errors import InputError
from faultlib.readers.files import DEFAULT, Limits, MiB, _open_regular
from faultlib.readers.sizes import FileTooLarge

GZIP_MAGIC = b"\x1f\x8b"
INT64 = 1 << 63
CHUNK = 64 * 1024
_OPEN = ("start_map", "start_array")
_CLOSE = ("end_map", "end_array")


class Stream:
    """A file's (decompressed) bytes, read once, front to back: ``read``/``readline`` as a binary file,
    ``line`` the 1-based line the reading stands on, ``compressed`` whether it was gzip. Close it (a context
    manager)."""

    def __init__(self, path: str, raw, compressed: bool, max_decompressed: int):
        self.path, self.compressed, self._raw = path, compressed, raw
        self._src = gzip.GzipFile(fileobj=raw, mode="rb") if compressed else raw
        self._bound, self.bytes, self.line, self._first = max_decompressed, 0, 1, True
        self._back = b""

    def _count(self, data: bytes) -> bytes:
        if self._first:
            self._first = False
            data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM, as read_text drops it
        self.bytes += len(data)
        self.line += data.count(b"\n")
        if self.compressed and self.bytes > self._bound:
            raise InputError(f"gzip content expands beyond {self._bound} bytes: split the trace", path=self.path)
        return data

    def _guard(self, call, *args) -> bytes:
        try:
            return self._count(call(*args))
        except EOFError:
            raise InputError("gzip content is truncated (the stream ends early): re-export it",
                             path=self.path) from None
        except (gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(f"gzip content is corrupt ({exc}): re-export it", path=self.path) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path=self.path) from None

    def read(self, size: int = CHUNK) -> bytes:
        if size == 0:  # ijson asks for 0 bytes to learn whether the file gives bytes or str
            return b""
        if self._back:
            data, self._back = self._back, b""
            return self._count(data)
        return self._guard(self._src.read, size if size and size > 0 else CHUNK)

    def readline(self, limit: int = -1) -> bytes:
        if self._back:
            raise ValueError("readline after unread")
        return self._guard(self._src.readline, limit)

    def unread(self, data: bytes) -> None:
        """Hand ``data`` (the bytes just read) out again on the next :meth:`read`, lines and bytes uncounted."""
        self._back = data + self._back
        self.bytes -= len(data)
        self.line -= data.count(b"\n")

    def close(self) -> None:
        if self._src is not self._raw:
            self._src.close()
        self._raw.close()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_stream(path, *, limits: Limits = DEFAULT, max_decompressed: int = 1024 * MiB) -> Stream:
    """Open ``path`` for :func:`events` or line-by-line reading (see the module docstring).

    Raises:
        InputError: missing, a symbolic link, not a regular file, larger than ``limits.max_bytes``.
    """
    fd = _open_regular(path, limits)
    raw = os.fdopen(fd, "rb")
    try:
        compressed = os.pread(fd, 2, 0) == GZIP_MAGIC
    except OSError as exc:
        raw.close()
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from None
    return Stream(str(path), raw, compressed, max_decompressed)


def _number(value: Any, stream: Stream) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError("invalid JSON: a number is out of range (not finite)", path=stream.path, line=stream.line)
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        raise InputError(f"invalid JSON: integer {str(value)[:24]} is out of range (signed 64-bit)",
                         path=stream.path, line=stream.line)
    return value


def events(stream: Stream, *, limits: Limits = DEFAULT) -> Iterator[tuple[str, str, Any]]:
    """ijson's ``(prefix, event, value)`` events of the one JSON document in ``stream``, checked as they come
    (module docstring). Numbers are ``int`` or ``float``.

    Raises:
        InputError: not JSON (truncated, trailing data, invalid UTF-8), too deep, a duplicate key, a number
            that is not finite or out of range; with the file and the line the reading stood on.
    """
    import ijson

    keys: list[set[str] | None] = []
    parser = ijson.parse(stream, use_float=True, buf_size=CHUNK)
    try:
        for prefix, event, value in parser:
            if event in _OPEN:
                keys.append(set() if event == "start_map" else None)
                if len(keys) > limits.max_depth:
                    raise InputError(f"invalid JSON: nested more than {limits.max_depth} levels deep",
                                     path=stream.path, line=stream.line)
            elif event in _CLOSE:
                keys.pop()
            elif event == "map_key":
                if value in keys[-1]:
                    raise InputError(f"invalid JSON: duplicate key {value!r}", path=stream.path, line=stream.line)
                keys[-1].add(value)
            elif event == "number":
                _number(value, stream)
            yield prefix, event, value
    except ijson.JSONError as exc:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"invalid JSON: {why[:200]}", path=stream.path, line=stream.line) from None
    except (ValueError, RecursionError) as exc:  # e.g. a number ijson cannot convert
        raise InputError(f"invalid JSON: {str(exc)[:200]}", path=stream.path, line=stream.line) from None


def build(event: str, value: Any, rest: Iterator[tuple[str, str, Any]], *, stream: Stream,
          limits: Limits = DEFAULT) -> Any:
    """The whole value that starts with ``(event, value)``, its remaining events taken from ``rest`` (the
    iterator of :func:`events` that yielded it).

    Raises:
        InputError: more than ``limits.max_nodes`` values in it.
    """
    if event not in _OPEN:
        return value
    root: Any = {} if event == "start_map" else []
    stack, key, nodes = [root], None, 1
    for _, event, value in rest:
        if event == "map_key":
            key = value
            continue
        if event in _CLOSE:
            stack.pop()
            if not stack:
                return root
            continue
        nodes += 1
        if nodes > limits.max_nodes:
            raise InputError(f"invalid JSON: a value holds more than {limits.max_nodes} values", path=stream.path,
                             line=stream.line)
        item = {} if event == "start_map" else [] if event == "start_array" else value
        parent = stack[-1]
        if isinstance(parent, dict):
            parent[key] = item
        else:
            parent.append(item)
        if event in _OPEN:
            stack.append(item)
    raise InputError("invalid JSON: the document ends inside a value (truncated?)", path=stream.path, line=stream.line)


def too_large_line(stream: Stream, number: int, bound: int) -> FileTooLarge:
    """The error for line ``number`` longer than ``bound`` bytes."""
    return FileTooLarge(stream.path, bound + 1, bound, subject="line", line=number, at_least=True)


__all__ = ["Stream", "build", "events", "open_stream", "too_large_line"]
