"""The extent of a Python 3.12 f-string (PEP 701), for parsers older than 3.12 that cannot read it.

PEP 701 lets a replacement field hold what older tokenizers end the string at: the string's own quote
(``f"{d["key"]}"``) and newlines inside a single-quoted f-string's braces (``f"total: {\\n  sum(xs)}"``). A Python
3.11 parser then reports a plain ``invalid syntax``, ``Perhaps you forgot a comma?`` or ``unterminated string
literal`` at the f-string's line, never naming the f-string. :func:`blank_fstrings` finds where each f-string that
starts on that line ends by PEP 701's grammar (quotes and brackets nested inside its fields, each field's strings
scanned the same way) and puts an empty string in its place, lines kept (``("" ... )`` over the lines it spanned):
the value stays a string, the calls inside its fields are not read.
"""

from __future__ import annotations

import re

_START = re.compile(r"(?<![\w'\"])[rRbBuU]?[fF][rR]?('''|\"\"\"|'|\")|(?<![\w'\"])[rRbBuU]{0,2}('''|\"\"\"|'|\")")
_OPENS, _CLOSES = "([{", ")]}"


def blank_fstrings(source: str, line: int) -> str:
    """``source`` with every f-string starting on 1-based ``line`` replaced by ``""``, up to the first string that
    does not end or a comment (``source`` itself when none is replaced)."""
    before = source.split("\n", line - 1) if line > 0 else []  # the line's start, found in C (called once a round)
    if not 0 < line <= len(before):
        return source
    start = len(source) - len(before[-1])
    pos, end_of_line, out, last = start, source.find("\n", start), [], 0
    end_of_line = len(source) if end_of_line < 0 else end_of_line
    while pos < end_of_line:
        match = _START.search(source, pos, end_of_line)
        if match is None or "#" in source[pos:match.start()]:  # none left, or the rest is a comment
            break
        end = _string_end(source, match)
        if end is None:  # a string that does not end: the error is another one
            break
        if match.group(1):  # an f-string: its text goes, its lines stay
            newlines = source.count("\n", match.start(), end)
            out += [source[last:match.start()], '("' + '"' + "\n" * newlines + ")" if newlines else '""']
            last = end
        pos = end
    return "".join(out) + source[last:] if out else source


def _string_end(source: str, match: re.Match) -> int | None:
    """The offset just past the string literal ``match`` opens (an f-string's fields scanned by PEP 701)."""
    quote, pos, fstring = match.group(1) or match.group(2), match.end(), bool(match.group(1))
    raw = "r" in match.group(0)[:-len(match.group(1) or match.group(2))].lower()
    while pos < len(source):
        if source.startswith(quote, pos):
            return pos + len(quote)
        char = source[pos]
        if char == "\n" and len(quote) == 1:
            return None  # an unterminated plain string: not ours to fix
        if (char == "\\" and not raw) or (fstring and source.startswith("{{", pos)):  # an escape, a literal brace
            pos += 2
        elif fstring and char == "{":
            pos = _field_end(source, pos + 1)
            if pos is None:
                return None
        else:
            pos += 1
    return None


def _field_end(source: str, pos: int) -> int | None:
    """The offset just past the ``}`` closing the replacement field whose text starts at ``pos``."""
    depth = 0
    while pos < len(source):
        match = _START.match(source, pos)
        if match:  # a string inside the field: any quote, an f-string's own fields scanned too
            pos = _string_end(source, match)
            if pos is None:
                return None
            continue
        char = source[pos]
        if char in _OPENS:
            depth += 1
        elif char in _CLOSES:
            if depth == 0:
                return pos + 1 if char == "}" else None
            depth -= 1
        pos += 1
    return None
