"""Where user code called in: the first frame outside faultlib, torch and any other skipped directory.

Shared by the distributed detectors that report a call site (the flight recorder, the non-finite watch
on collectives, the DataLoader worker watch).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

#: faultlib's package directory; a sibling file named ``faultlib_train.py`` stays user code (the separator)
FAULTLIB_DIR = str(Path(__file__).resolve().parents[2]) + os.sep


def torch_dir() -> str:
    """The installed torch package's directory, with a trailing separator (imports torch)."""
    import torch

    return str(Path(torch.__file__).resolve().parent) + os.sep


def user_call_site(skip: tuple[str, ...], depth: int = 2) -> dict[str, Any]:
    """``{"file", "line", "function"}`` of the innermost frame at or above ``depth`` (0 = this function, 2 =
    the caller of its caller) whose file is in none of the ``skip`` directories; all ``None`` when every frame is."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(skip):
        frame = frame.f_back
    if frame is None:
        return {"file": None, "line": None, "function": None}
    return {"file": frame.f_code.co_filename, "line": frame.f_lineno, "function": frame.f_code.co_name}
