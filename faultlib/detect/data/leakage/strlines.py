"""Which lines of a script or cell continue a multi-line (triple-quoted) string literal.

The IPython/doctest clean-up (:func:`~faultlib.detect.data.leakage.source.clean_lines`) rewrites lines by their
first characters (``%``, ``!``, ``>>>``); inside a string those characters are text, not syntax: a docstring's
``Example:`` block with ``>>>`` prompts must stay as written, or its closing quotes are dropped as "doctest
output" and the whole file stops parsing.

Not :mod:`tokenize`: this runs on the raw text BEFORE the clean-up, which is not Python yet (``!pip``, ``%%time``,
prompts, a cell cut mid-statement); the standard tokenizer stops at the first such line (or at an unterminated string
at the end) and would leave every later string unmarked, where this scan keeps going line by line.
"""

from __future__ import annotations


def inside_strings(lines: list[str]) -> list[bool]:
    """For each line, whether it starts inside a triple-quoted string opened on an earlier line.

    Args:
        lines: the text's lines, without line ends.

    Returns:
        one bool per line. A scan of quotes outside comments (an estimate: a string prefix such as ``r``
        changes nothing here; a backslash escapes the next character, as in non-raw strings).
    """
    out: list[bool] = []
    quote = ""  # the open triple quote carried from line to line
    for line in lines:
        out.append(bool(quote))
        i, single = 0, ""
        while i < len(line):
            ch = line[i]
            if quote or single:
                if ch == "\\":
                    i += 2
                    continue
                if quote and line.startswith(quote, i):
                    quote, i = "", i + 3
                    continue
                if single and ch == single:
                    single = ""
                i += 1
                continue
            if ch == "#":
                break
            if line.startswith(('"""', "'''"), i):
                quote, i = line[i:i + 3], i + 3
                continue
            if ch in "'\"":
                single = ch
            i += 1
    return out


__all__ = ["inside_strings"]
