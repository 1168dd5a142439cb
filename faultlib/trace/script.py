"""Run a script as ``python SCRIPT ARGS...`` would, in this process, and say how it ended (the child side of
``faultlib trace`` and ``faultlib trace --asyncio``); write the pass's result file atomically."""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback
from typing import Any, Callable


def _write_result(path: str, result: dict[str, Any]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh, default=str)
    os.replace(tmp, path)


def _print_script_traceback(exc: BaseException, script: str) -> None:
    """The traceback Python would print for the script: from its first frame on, the tracer's left out."""
    tb = exc.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != script:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__)


def run_script(argv: list[str], *, stop: type[BaseException] | None = None,
               on_error: Callable[[BaseException, str], None] | None = None) -> dict[str, Any]:
    """Run ``argv`` (``SCRIPT ARGS...``) as ``python SCRIPT ARGS...`` would; say how it ended.

    Args:
        argv: the script and its arguments.
        stop: the exception a tracer raises to stop the script (``end`` is then ``stopped``).
        on_error: called as ``fn(exception, script)`` when the script raises (its traceback is printed after).

    Returns:
        ``{"started": True, "end", "script_exit", "error"}`` (see the module docstring).
    """
    script, args = os.path.abspath(argv[0]), argv[1:]
    result: dict[str, Any] = {"started": True, "end": "exit", "script_exit": 0, "error": None}
    sys.argv = [argv[0], *args]
    sys.path[0] = os.path.dirname(script)  # as `python SCRIPT` sets it
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)  # sys.exit("message"): Python prints it and exits 1
            code = 1
        result.update(script_exit=int(code or 0))
    except KeyboardInterrupt as exc:
        _print_script_traceback(exc, script)
        result.update(end="interrupted", script_exit=None, error="KeyboardInterrupt")
    except BaseException as exc:  # noqa: BLE001 - the script's own failure, reported like Python would
        if stop is not None and isinstance(exc, stop):
            result.update(end="stopped", script_exit=None)
            return result
        if on_error is not None:
            on_error(exc, script)
        _print_script_traceback(exc, script)
        result.update(end="raised", script_exit=1, error=f"{type(exc).__name__}: {exc}".rstrip(": "))
    return result
