"""Where faultlib keeps what it can rebuild (ONNX spec index and kernel registry, torch build facts, the digits
split): one directory per user, never evidence.

The directory is ``$FAULTLIB_CACHE_DIR``, else ``$XDG_CACHE_HOME/faultlib`` (the XDG Base Directory
Specification), else ``~/.cache/faultlib``. Every reader of it treats a missing, corrupt or unwritable cache
as empty: the cached thing is rebuilt, and nothing fails for want of a cache.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path | None:
    """The cache directory (not created here); None when there is none to use (no home directory)."""
    if os.environ.get("FAULTLIB_CACHE_DIR"):
        return Path(os.environ["FAULTLIB_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if base.startswith("~"):  # expanduser found no home
        return None
    return Path(base) / "faultlib"
