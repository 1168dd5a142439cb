"""Python 2 ``print`` statements read as Python 3 calls, so the function around one is analysed, not skipped.

Course and competition code from before 2018 is often Python 2: ``print "rows", len(d)``. A one-line statement
fails to parse with "Missing parentheses in call to 'print'"; one that continues over several lines (an open
bracket: ``print "acc %.3f %d" % (``, next line ``score, n)``) fails with "invalid syntax" instead, and without
this rewrite :func:`~faultlib.detect.data.leakage.source.parse_tolerant` blanks the whole top-level statement
(a function holding the fit or the search). The rewrite keeps the printed expressions (a ``model.score(...)``
inside a print is an evaluation) and every line number: ``print`` becomes ``print(`` on the first line and
``)`` closes it on the last line of the statement, before a trailing comment. ``print >>stream, x`` (a
redirect) becomes ``print(x)``; a trailing comma (no newline) is dropped.
"""

from __future__ import annotations

import re

_PRINT = re.compile(r"^(\s*)print(?:\s+|(?=[\"']))(?!\s*[=(])(.*)$")
_REDIRECT = re.compile(r"^>>\s*[\w.\[\]'\"()]+\s*,\s*")


def scan_brackets(line: str) -> tuple[int, int]:
    """(opened minus closed brackets, where a comment starts or ``len(line)``), outside quotes (an estimate for
    one line: no triple quotes)."""
    change, quote = 0, ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and line[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return change, i
        elif ch in "([{":
            change += 1
        elif ch in ")]}":
            change -= 1
    return change, len(line)


def rewrite_print(lines: list[str], lineno: int) -> bool:
    """Rewrite the Python 2 ``print`` statement that starts on 1-based ``lineno`` in place.

    Args:
        lines: the analysed text's lines (changed in place; their count never changes).
        lineno: the line a ``SyntaxError`` named.

    Returns:
        True when that line starts a ``print`` statement and was rewritten; False otherwise (nothing changed).
    """
    if not 0 < lineno <= len(lines):
        return False
    m = _PRINT.match(lines[lineno - 1])
    if not m or not m.group(2).strip() or m.group(2).lstrip().startswith(("#", ";")):
        return False
    indent, rest = m.group(1), _REDIRECT.sub("", m.group(2))
    last, depth = lineno, 0
    text = rest
    while True:
        change, _ = scan_brackets(text)
        depth += change
        continued = text[:scan_brackets(text)[1]].rstrip().endswith("\\")
        if (depth <= 0 and not continued) or last >= len(lines):
            break
        last += 1
        text = lines[last - 1]
    lines[lineno - 1] = f"{indent}print({rest}"
    end_text = lines[last - 1]
    cut = scan_brackets(end_text)[1]
    code, comment = end_text[:cut].rstrip(), end_text[cut:]
    code = code.rstrip(";").rstrip()
    if code.endswith(",") and depth <= 0:
        code = code[:-1]
    lines[last - 1] = f"{code})" + (f"  {comment}" if comment else "")
    return True
