"""Addressing a value inside a user's document: ``FILE#dotted.key.path``.

``serving.yaml#postprocess.class_names`` names the list at that key path of that file; ``a.list[0].b``
and ``a.0.b`` index lists. Used by every check that takes a label map, scaler parameters or a config
from inside a larger file; errors name the path, the line (for YAML) and the keys found there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.readers.integers import decimal

_INDEX = re.compile(r"[+-]?[0-9]+")
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def split_source(spec: str) -> tuple[str, str | None]:
    """``"serving.yaml#postprocess.class_names"`` -> ``("serving.yaml", "postprocess.class_names")``.

    A path that exists as given (even with ``#`` in its name) is taken whole; otherwise the text
    after the last ``#`` is the key path.
    """
    if "#" not in spec or _exists(spec):
        return spec, None
    path, key = spec.rsplit("#", 1)
    return path, key or None


def _exists(spec: str) -> bool:
    """Whether ``spec`` names an existing file; a name the system refuses (too long, a NUL byte) names none."""
    try:
        return Path(spec).exists()
    except (OSError, ValueError):
        return False


def _short(text: str) -> str:
    """``text``, or its first 40 characters and its length when longer (a key path of 5,000 digits)."""
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text):,} characters)"


def parse_key_path(key: str, path: str) -> list[str | int]:
    parts: list[str | int] = []
    pos = 0
    for match in _SEGMENT.finditer(key):
        gap = key[pos:match.start()]
        if gap not in ("", "."):
            break
        index = decimal(match.group(2)) if match.group(1) is None else None
        if match.group(1) is None and index is None:
            raise InputError(f"key path {_short(key)!r}: index [{_short(match.group(2))}] is larger than any list",
                             path=path, field=_short(key))
        parts.append(match.group(1) if match.group(1) is not None else index)
        pos = match.end()
    if pos != len(key) or not parts:
        raise InputError(f"key path {key!r} is not a dotted path (a.b.c, a.list[0].b)", path=path, field=key)
    return parts


def resolve_key_path(doc: Any, key: str, path: str, line_of=None) -> Any:
    """The value at dotted ``key`` (``a.b``, ``a.list[0].b``, ``a.0.b``) inside a parsed document.

    Raises:
        InputError: a segment that does not exist (naming the keys or list length found there), with
            the line from ``line_of`` (a YAML document's :meth:`PositionedYaml.line_of`) when given.
    """
    here: Any = doc
    walked: list[str | int] = []
    for part in parse_key_path(key, path):
        if isinstance(here, dict):
            step = str(part)
            if step not in here:
                keys = ", ".join(map(repr, list(here)[:20])) or "(none)"
                at = ".".join(map(str, walked)) or "the top level"
                raise InputError(f"key path {key!r}: no key {step!r} at {at}; keys there: {keys}", path=path,
                                 line=line_of(walked) if line_of else None, field=key)
            here = here[step]
        elif isinstance(here, list):
            index = part if isinstance(part, int) else (decimal(part) if _INDEX.fullmatch(str(part)) else None)
            if index is None or not 0 <= index < len(here):
                raise InputError(f"key path {key!r}: {part!r} is not an index of the list of {len(here)} items "
                                 f"at {'.'.join(map(str, walked)) or 'the top level'}", path=path,
                                 line=line_of(walked) if line_of else None, field=key)
            here = here[index]
        else:
            raise InputError(f"key path {key!r}: {'.'.join(map(str, walked))} is a {type(here).__name__}, "
                             "not a mapping or list", path=path, line=line_of(walked) if line_of else None, field=key)
        walked.append(part)
    return here
