"""Text from runs and cases made safe to show: control characters never reach a terminal or a page."""

from __future__ import annotations


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
