"""Integers spelled in your text (a key path, a size, an ``opset=``, a label map's index), bounded before ``int()``.

Python refuses to convert a string of more than 4,300 digits (``sys.get_int_max_str_digits()``, the guard
against CVE-2020-10735) with a ``ValueError`` that none of the readers expected: ``labels.json#a[999…9]``,
``--target opset=999…9``, an ``id2label`` key or ``FAULTLIB_MAX_FILE_BYTES`` of 5,000 digits ended in a
traceback instead of exit 2. Every bound a reader applies to such a number (an index, an opset, a byte count)
fits in a signed 64-bit integer, so :func:`decimal` answers None for a longer run of digits and each reader
refuses it as out of range, in its own words, with its file and field.
"""

from __future__ import annotations

#: the digits of the largest signed 64-bit integer (9,223,372,036,854,775,807)
MAX_DIGITS = 19


def decimal(text: str) -> int | None:
    """The integer ``text`` spells (decimal digits, optionally signed and surrounded by spaces), or None when it
    has more than :data:`MAX_DIGITS` digits, leading zeros not counted (out of any range a reader accepts).

    Raises:
        ValueError: ``text`` is not a decimal integer (as ``int(text)`` would).
    """
    digits = text.strip().lstrip("+-").lstrip("0")
    if len(digits) > MAX_DIGITS:
        return None
    return int(text)
