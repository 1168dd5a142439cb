"""The user's source line: the innermost stack frame outside torch, faultlib and the standard library (used by
:mod:`faultlib.detect.numerics.nan_locator` for each value and by
:class:`~faultlib.detect.numerics.module_stack.ModuleStack` for each buffer a model registers)."""

from __future__ import annotations

import os
import sys

_INTERNAL_DIRS: tuple[str, ...] = ()


def _internal_dirs() -> tuple[str, ...]:
    global _INTERNAL_DIRS
    if not _INTERNAL_DIRS:
        import torch

        from faultlib.package import PACKAGE_DIR

        dirs = [os.path.dirname(torch.__file__), PACKAGE_DIR,
                os.path.dirname(os.__file__)]
        _INTERNAL_DIRS = tuple(os.path.join(d, "") for d in dirs)
    return _INTERNAL_DIRS


def user_frame() -> tuple[str | None, int | None]:
    """File and line of the innermost stack frame outside torch, faultlib and the stdlib."""
    internal = _internal_dirs()
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(internal) and not filename.startswith("<"):
            return filename, frame.f_lineno
        frame = frame.f_back
    return None, None
