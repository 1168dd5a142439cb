"""The index of a project's scripts (:class:`~faultlib.detect.data.leakage.repofiles.RepoFiles`) kept on disk between
runs: ``check leakage`` on one script of a repository parses and indexes every script of it to find the files they
hand each other (82 Python 2 scripts of a Kaggle solution: about 3 s, in every run, before the script's own analysis).

The index is a function of the scripts' texts and of faultlib's own code that reads them, so the key is both: the
root, each script's path and the SHA-256 of its text as read now (a changed, added or removed script is a new key,
never a stale index), and the size and modification time of every source file of the packages that build it
(this package, :mod:`faultlib.pyflow`, :mod:`faultlib.readers`: a changed rule is a new key too), with
:data:`CACHE_FORMAT` and the Python version (the parser's). One JSON file a key, in ``<cache_dir>/leakage/``
(:func:`faultlib.cache.cache_dir`), written and read as the project's other caches are (:func:`faultlib.cache.write_json`:
a temporary name renamed into place; :func:`faultlib.cache.read_json`: bounded, no link).
A cache that is missing, unreadable, too large or not of the expected shape is rebuilt; a cache directory that
cannot be written leaves the index unkept: nothing fails for want of a cache. Every edit of a script is a new key,
so the folder is kept bounded: each write removes the least recently used files (a hit marks its file used) past
:data:`MAX_KEPT_FILES` files or :data:`MAX_KEPT_BYTES` bytes (:func:`faultlib.cache.prune`).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from faultlib.cache import cache_dir, prune, read_json, write_json

__all__ = ["CACHE_FORMAT", "index_key", "load_index", "store_index"]

CACHE_FORMAT = 1
"""Version of the cached file's layout; another value is a different key."""
MAX_CACHE_BYTES = 64 << 20
"""A cached index larger than this is not read (rebuilt instead)."""
MAX_KEPT_FILES = 1000
"""The most cached indexes kept (the least recently used removed first): the benchmark's 544 projects and their
users' edits, with room to spare."""
MAX_KEPT_BYTES = 256 << 20
"""The most bytes the cached indexes take together (the least recently used removed first)."""
_CODE = ("detect/data/leakage", "pyflow", "readers")
"""faultlib's packages whose code builds the index (relative to the ``faultlib`` folder)."""


def _code_stamp() -> list[str]:
    """``path:size:mtime`` of every source file of :data:`_CODE`."""
    base = Path(__file__).resolve().parents[3]
    out = []
    for folder in _CODE:
        for path in sorted((base / folder).glob("*.py")):
            try:
                st = path.stat()
            except OSError:
                continue
            out.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
    return out


def index_key(root: str, texts: list[tuple[str, str]]) -> str:
    """The key of the index of ``root`` built from ``texts`` (``(script path, text)`` each, as indexed)."""
    digest = hashlib.sha256()
    for part in (str(CACHE_FORMAT), sys.version, root, *_code_stamp()):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    for path, text in texts:
        digest.update(path.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()[:40]


def _path(key: str) -> Path | None:
    root = cache_dir()
    return None if root is None else root / "leakage" / f"repofiles-{key}.json"


def load_index(key: str) -> dict[str, Any] | None:
    """The cached index of ``key`` (the JSON :func:`store_index` wrote), or None when there is none to read."""
    path = _path(key)
    data = read_json(path, MAX_CACHE_BYTES) if path is not None else None
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("key") != key:
        return None
    try:
        os.utime(path, follow_symlinks=False)  # type: ignore[arg-type]  # used now: pruned last
    except (OSError, NotImplementedError):
        pass
    return data


def store_index(key: str, data: dict[str, Any]) -> None:
    """Keep ``data`` (JSON) as the index of ``key``; a cache directory that cannot be written keeps nothing."""
    path = _path(key)
    if path is not None:
        write_json(path, {"format": CACHE_FORMAT, "key": key, **data})
        prune(path.parent, "repofiles-", max_files=MAX_KEPT_FILES, max_bytes=MAX_KEPT_BYTES)
