"""Text from runs and cases made safe to show: control characters never reach a terminal or a page."""

from __future__ import annotations

import re


def printable(text: str) -> str:
    """``text`` with control characters (ESC, BEL, CR, C1, line/paragraph separators) shown as escapes
    (``\\x1b``): a hostile id, file name, query or Prometheus error in a message cannot drive the
    terminal (set its title, move the cursor) or hide text in a report. Newlines and tabs stay."""
    return "".join(c if c in "\n\t" or (c.isprintable() and c not in "\x85\u2028\u2029") else
                   c.encode("unicode_escape").decode("ascii") for c in text)


def inline(text: str) -> str:
    """``text`` as one line: :func:`printable`, with newlines and tabs escaped too (``\\n``). For a value that
    is one line by nature (a file, service or case name, a table cell's location): a newline in it (a file
    named ``a\\nfake: ok.py``, a trace's ``service.name``) cannot forge a line of output or split a row."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def first_line(text: str | None, limit: int = 300) -> str:
    """The first non-empty line of ``text`` (stripped), cut to ``limit`` characters (``...`` marks the cut):
    the one-line reason a summary prints (an assertion's ``AssertionError: assert 167.97 < 50``)."""
    line = next((part.strip() for part in (text or "").splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


#: the most characters of one input an error message repeats (a long real path fits); a longer input is cut
ECHO_LIMIT = 300
#: how many characters of a cut input are shown, half from its start and half from its end
ECHO_SHOWN = 120
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.){%d,}'|\"(?:[^\"\\\n]|\\.){%d,}\"|[^\s'\"]{%d,}"
                     % (ECHO_LIMIT + 1, ECHO_LIMIT + 1, ECHO_LIMIT + 1))


def echoed(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` (an input repeated in an error message) as it is when it has at most ``limit`` characters, else
    :data:`ECHO_SHOWN` of its characters, half from each end, around an ellipsis, then its length:
    ``99999999…99999999 (5,000 characters)``. A quoted input keeps its quotes. A message then stays a line a person
    reads, whatever was typed or read."""
    if len(text) <= limit:
        return text
    quote = text[0] if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0] else ""
    inner = text[len(quote):len(text) - len(quote)]
    half = max(1, min(limit, ECHO_SHOWN) // 2 - 1)
    return f"{quote}{inner[:half]}…{inner[-half:]}{quote} ({len(inner):,} characters)"


def shorten_echoes(message: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` with every quoted value and every run of non-space characters longer than ``limit`` shown by
    :func:`echoed`: the one place the CLI caps what an error repeats of its input (a 5,000-digit ``--volume-size``,
    a case id of a megabyte), whichever reader or option the message came from."""
    if len(message) <= limit:
        return message
    def cut(match: re.Match) -> str:
        token = match.group(0)
        bare = token.rstrip(":,;.)")  # `path:` keeps its colon after the cut
        return echoed(bare, limit) + token[len(bare):]

    return _QUOTED.sub(cut, message)
