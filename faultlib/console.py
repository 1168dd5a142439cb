"""The one printing path for people: two rich consoles and the output mode of the running command.

Every command, the CLI's own and every ``faultlib check`` plugin, prints through :data:`stdout` and
:data:`stderr`; :data:`state` says whether the running command was asked for JSON (the CLI's one error
handler then prints errors as JSON) and whether ``--debug`` is on. It imports nothing of ours but
:mod:`faultlib.text`, so a check, a detector's report or the CLI can all use it without importing
the CLI.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from faultlib.text import printable

__all__ = ["emit_json", "printable", "state", "stderr", "stdout"]


def _console(*, to_stderr: bool) -> Console:
    """Paths and ids are never broken mid-name (soft wrap); piped output is 200 columns wide, not 80."""
    stream = sys.stderr if to_stderr else sys.stdout
    return Console(stderr=to_stderr, soft_wrap=True, width=None if stream.isatty() else 200)


stdout = _console(to_stderr=False)
stderr = _console(to_stderr=True)

#: ``json``: the running command prints JSON (set by each command from its ``--json``); ``debug``:
#: ``faultlib --debug``; ``signal``: the signal that interrupted the command, if one did.
state: dict[str, Any] = {"json": False, "debug": False}


def emit_json(data: Any) -> None:
    """``data`` as one indented JSON object on stdout (values JSON cannot hold are shown with ``str``)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
