"""The one printing path for people: two rich consoles and the output mode of the running command.

Every command, the CLI's own and every ``faultlib check`` plugin, prints through :data:`stdout` and
:data:`stderr`; :data:`state` says whether the running command was asked for JSON (the CLI's one error
handler then prints errors as JSON) and whether ``--debug`` is on. It imports nothing of ours but
:mod:`faultlib.text`, so a check, a detector's report or the CLI can all use it without importing
the CLI.

Text from users' files is never markup: the consoles interpret no rich markup (``[bold]``), no emoji
shortcodes (``file.yaml:100:`` stays as written, never "file.yaml💯") and highlight nothing; and every
character a terminal would act on (ESC, BEL, CR, C1 controls, line separators) is shown escaped
(:func:`faultlib.text.printable`) in whatever is printed — a string, a :class:`rich.text.Text`, a table
cell — at the last step before the terminal, so no command can forget it. Our own styles (colours,
bold) are kept.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.segment import Segment

from faultlib.text import printable

__all__ = ["SafeConsole", "emit_json", "printable", "state", "stderr", "stdout"]


class SafeConsole(Console):
    """A rich console that never interprets text as markup or emoji and escapes terminal controls in every
    text segment it writes (rich's own control segments, cursor moves of a live display, pass)."""

    def __init__(self, **kwargs: Any):
        super().__init__(markup=False, emoji=False, highlight=False, **kwargs)

    def render_str(self, text: str, **kwargs: Any):  # strings (print arguments, table cells): escaped before
        return super().render_str(printable(text), **kwargs)  # rich measures them, so columns line up

    def _render_buffer(self, buffer):  # rich's last step before the file: every printed segment passes here
        return super()._render_buffer(segment if segment.control else Segment(printable(segment.text), segment.style)
                                      for segment in buffer)


def _console(*, to_stderr: bool) -> Console:
    """Paths and ids are never broken mid-name (soft wrap). Tables are for people, so they fit the width people
    read them at, asked at each print: ``COLUMNS`` when set (``COLUMNS=200 faultlib list | grep ...``), else
    the terminal's (also when only stdin or stderr is one: ``faultlib list | less``), else 80 (a CI log, a
    file); the conventional rule (``shutil.get_terminal_size``, rich). Programs read ``--json``, never a table."""
    return SafeConsole(stderr=to_stderr, soft_wrap=True, width=None)


stdout = _console(to_stderr=False)
stderr = _console(to_stderr=True)

#: ``json``: the running command prints JSON (set by each command from its ``--json``); ``writes_evidence``:
#: the command archives runs (run, regress, regen: an interrupt keeps what was written); ``debug``:
#: ``faultlib --debug``; ``signal``: the signal that interrupted the command, if one did.
state: dict[str, Any] = {"json": False, "debug": False}


def emit_json(data: Any) -> None:
    """``data`` as one indented JSON object on stdout (values JSON cannot hold are shown with ``str``)."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
