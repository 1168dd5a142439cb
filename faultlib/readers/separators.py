"""A delimited table separated by another character than its suffix says (a ``;``-separated ``.csv``, as
spreadsheets write it where the comma is the decimal mark) would be read as one column holding whole rows and
compared as categories: :func:`check_separator` refuses it, naming the separator it found."""

from __future__ import annotations

from pathlib import Path

from faultlib.errors import InputError

#: The separators told apart, with their names in messages.
SEPARATORS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "'|'"}


def check_separator(header: list[str], first: str, row: str, path: Path, sep: str) -> None:
    """Refuse a one-column ``header`` whose line ``first`` holds another separator as often as the first row
    ``row`` does (a single column whose name holds a ';' and whose rows do not stays a column).

    Raises:
        InputError: line 1 of ``path``, naming the separator found and the one ``sep`` expected.
    """
    if len(header) != 1:
        return
    for other, name in SEPARATORS.items():
        count = first.count(other)
        if other != sep and count and row.count(other) == count:
            raise InputError(f"its header {header[0]!r} is one column that holds {count} {name}(s), as its first row "
                             f"does: a {name}-separated table is not read as {path.suffix or 'this kind'}: save it "
                             f"separated by {SEPARATORS[sep]}s", path=str(path), line=1)
