"""The checks ``faultlib trace`` makes before the script runs: the command (``python SCRIPT.py ARGS...``, the
interpreter used as given) and the folders it will write in."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from faultlib.errors import InputError, ScriptError


def resolve_command(command: list[str]) -> tuple[str, Path, list[str]]:
    """Split ``[PYTHON, SCRIPT.py, ARGS...]``; a bare ``python``/``python3`` is this interpreter.

    Raises:
        ScriptError: not ``python SCRIPT.py ...``; the script or the interpreter does not exist.
    """
    if len(command) < 2 or not Path(command[0]).name.startswith("python"):
        raise ScriptError(f"expected `-- python SCRIPT.py ARGS...` or `-- torchrun OPTIONS SCRIPT.py ARGS...`, got {' '.join(command) or 'nothing'}")
    python, script, args = command[0], Path(command[1]), command[2:]
    if script.suffix != ".py":
        raise ScriptError(f"{script}: not a Python script (expected SCRIPT.py)")
    if not script.is_file():
        raise ScriptError(f"{script}: no such script")
    if python in ("python", "python3"):
        return sys.executable, script, args  # the interpreter faultlib runs in: torch and faultlib are there
    if os.sep in python:
        if not (Path(python).is_file() and os.access(python, os.X_OK)):
            raise ScriptError(f"{python}: no such interpreter (or not executable)")
        return python, script, args
    found = shutil.which(python)
    if found is None:
        raise ScriptError(f"{python}: no such interpreter on PATH")
    return found, script, args


def check_writable_dir(path: Path, option: str) -> None:
    """Check that ``path`` is, or can be created as, a directory this process can write in.

    Raises:
        InputError: ``path`` or an ancestor is a file, or the nearest existing directory is not writable, or a
            component is a symbolic link (the default ``.faultlib/trace`` too: :func:`faultlib.outputs.output_dir`).
    """
    from faultlib.outputs import output_dir

    output_dir(path, option, create=False)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        what = "is a file, not a directory" if existing == path else f"cannot be created: {existing} is a file"
        raise InputError(f"{what}: pass a directory", path=path, field=option)
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise InputError(f"cannot write in {existing} ({exc.strerror or exc}): pass a writable directory",
                         path=path, field=option) from exc
