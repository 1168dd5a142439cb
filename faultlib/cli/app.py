"""The ``faultlib`` command line (click + rich), assembled: :func:`main` is the console-script entry.

Each command lives in its own module, named in the root group's table (:data:`faultlib.cli.root.COMMANDS`)
and imported only when it runs; this module maps errors to exit codes in one place. Heavy libraries load
inside commands, never at import.

Exit codes: 0 passed / nothing found; 1 a case failed or a finding was raised; 2 bad usage
or bad input; 3 a backend or archive was unreachable.
"""

from __future__ import annotations

import errno
import sys

import click

from faultlib.cli.root import app
from faultlib.console import emit_json, printable, state, stderr
from faultlib.errors import FaultlibError, InputError
from faultlib.text import shorten_echoes

__all__ = ["app", "main"]


def _terminate(signum, _frame) -> None:
    """SIGTERM / SIGHUP (a CI cancel, a closed terminal) stop a run the way Ctrl-C does: the
    repro's process group is killed and the run is recorded with verdict error."""
    from faultlib import stops

    state["signal"] = signum
    stops.interrupt(signum)


def _capped(error: object) -> object:
    """An error's JSON with each ``message`` through :func:`~faultlib.text.shorten_echoes` (a file, line and field
    stay exact for a program to use)."""
    if isinstance(error, dict):
        return {k: shorten_echoes(v) if k == "message" and isinstance(v, str) else _capped(v) for k, v in error.items()}
    return [_capped(v) for v in error] if isinstance(error, list) else error


def _asks_json(argv: list[str]) -> bool:
    """``--json`` among faultlib's own arguments (those before ``--``: after it come a traced script's)."""
    return "--json" in (argv[:argv.index("--")] if "--" in argv else argv)


def usage_json(exc: click.ClickException) -> dict:
    """A usage error under ``--json``, shaped as :meth:`faultlib.errors.FaultlibError.to_json` (``error``,
    ``message``) plus the command it concerns and the exit code (2 for bad usage)."""
    ctx = getattr(exc, "ctx", None)
    kind = "UsageError" if isinstance(exc, click.UsageError) else type(exc).__name__  # click's subclass: detail
    return {"error": kind, "message": exc.format_message(),
            "command": ctx.command_path if ctx is not None else "faultlib", "exit_code": exc.exit_code}


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes in one place."""
    import signal

    from faultlib.archive.credentials import secure_process

    if argv is None:  # the console script: archive keys leave the environment block before anything runs
        secure_process()
    from faultlib.stops import resend_swallowed_stops

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _terminate)
    resend_swallowed_stops()  # a stop raised inside an at-fork callback or a finalizer is not lost
    try:
        code = app.main(args=argv, prog_name="faultlib", standalone_mode=False)
    except FaultlibError as exc:
        if state["debug"]:  # the traceback, then the same exit code as without --debug
            import traceback

            traceback.print_exc()
        if state["json"]:
            emit_json(_capped(exc.to_json()))
        else:
            stderr.print(f"error: {printable(shorten_echoes(str(exc)))}", markup=False, highlight=False)
        sys.exit(exc.exit_code)
    except OSError as exc:  # a path argument longer than the system takes (ENAMETOOLONG), from any command
        if exc.errno != errno.ENAMETOOLONG:
            raise
        error = InputError(f"is a path of {len(str(exc.filename or '')):,} characters, longer than this system "
                           "takes: pass a shorter path", path=str(exc.filename or ""))
        if state["json"]:
            emit_json(_capped(error.to_json()))
        else:
            stderr.print(f"error: {printable(shorten_echoes(str(error)))}", markup=False, highlight=False)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        signum = state.get("signal") or signal.SIGINT
        kept = "; evidence written so far is kept" if state.get("writes_evidence") else ""
        stderr.print(f"aborted by {signal.Signals(signum).name}{kept}", markup=False)
        sys.exit(128 + signum)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.message = shorten_echoes(exc.message)  # click repeats a bad option value in full
        if _asks_json(sys.argv[1:] if argv is None else argv):  # DESIGN.md: --json prints one JSON object
            emit_json(usage_json(exc))
        else:
            exc.show()
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
