"""Sources written for a newer Python than the one running the analysis, rewritten so that its parser reads them.

:func:`~faultlib.readers.pysource.parse_python` comes here when the interpreter's parser refuses a source, so every
static check (``check blocking``, ``check leakage``, ``check resume``) reads newer syntax the same way. A file the
interpreter cannot parse was left out of ``check blocking`` whole, and with it every call it makes (held-out wave
46: an async crawler whose core modules use Python 3.14's ``except A, B:`` left 31 of its 115 files out); ``check
leakage`` skipped such a notebook cell and ``check resume`` refused such a script. Three syntaxes newer than Python
3.11 are rewritten, every line kept in place, so findings keep their lines:

- PEP 695 (Python 3.12): ``type Alias = ...`` becomes an assignment; the type parameters of ``def f[T](...)`` and
  ``class C[T]:`` are dropped, a parameter list spread over several lines joined by line continuations (a newline
  left bare there would end the ``def`` line before its ``(``); a class's parameter names are kept in the tree's
  :data:`TYPE_PARAMS` table (for ``check blocking``'s generics rules).
- PEP 758 (Python 3.14): ``except A, B:`` (no ``as``) becomes ``except (A, B):``, the tuple it means.
- PEP 701 (Python 3.12): an f-string whose braces hold what older parsers refuse (a backslash, the string's own
  quote, a newline) is replaced by an empty string on the line the parser names, its extent found by PEP 701's
  grammar (:mod:`faultlib.readers.fstring_literals`; the parser may name no f-string: ``invalid syntax``,
  ``unterminated string literal``); one started on an earlier line loses its ``f`` prefix instead; an f-string
  error on a line that starts none is the closing line of a parenthesised group of strings (Python 3.11 names the
  group's end: held-out wave 61, a mail tool's quoted reply), and the closest f-string above it is blanked. It stays
  a string; only the calls inside its braces are not followed.

Each rewrite runs only where the source does not parse as it is, and only the rewrites it needs; a source that still
does not parse raises the :class:`SyntaxError` of its last attempt, at its own line (the rewrites keep lines in place),
which ``parse_python`` turns into its bad-input error (or lets through to ``check leakage``, which skips that cell).
Sources: PEP 695 "Type Parameter Syntax", PEP 701 "Syntactic formalization of f-strings", PEP 758 "Allow except and
except* expressions without parentheses".
"""

from __future__ import annotations

import ast
import re
import sys

from faultlib.readers.fstring_literals import blank_fstrings

_PEP695 = re.compile(r"^([ \t]*)type[ \t]+(\w+)[ \t]*(?=[\[=])|\b(?:def|class)[ \t]+\w+[ \t]*(?=\[)", re.MULTILINE)
_PEP758 = re.compile(r"^([ \t]*except\*?)[ \t]+(?![(\s])([^\n:#()]*,[^\n:#]*?)[ \t]*:", re.MULTILINE)
_F_PREFIX = re.compile(r"(?<![\w'\"])([rRbBuU]?)[fF]([rR]?)(?=['\"])")
_MOST_FSTRING_LINES = 200  # one line per round: a file past this many such lines is refused as before
#: characters parsed again over all rounds: each round parses the whole text, so a large file full of such lines
#: would cost rounds x size (a 460 KB file of 200 took 40 s); past this budget it is refused as before
_REPARSE_BUDGET_CHARS = 24 * 1024 * 1024
TYPE_PARAMS = "_faultlib_type_params"
"""Key of the ``{class line: [type parameter names]}`` table the PEP 695 rewrite leaves in a module tree's
``__dict__``."""


def parse_newer_syntax(source: str, path: str, error: SyntaxError) -> ast.Module:
    """The tree of ``source``, which raised ``error`` on this interpreter's parser, with the syntax above rewritten.

    Raises:
        SyntaxError: ``error`` when nothing newer is there to rewrite, else the error of the last rewritten text.
        RecursionError, MemoryError, ValueError: the parser's own, on a rewritten text (``parse_python`` words them).
    """
    if sys.version_info >= (3, 14):
        raise error
    text, params = source, {}
    # each looked for once, in the source as given: no rewrite makes either appear
    pep758, pep695 = _has_pep758(text), sys.version_info < (3, 12) and _has_pep695(text)
    rounds = min(_MOST_FSTRING_LINES, _REPARSE_BUDGET_CHARS // max(1, len(source)))
    for _ in range(rounds + 2):
        if pep758:
            pep758 = False
            text = _PEP758.sub(r"\1 (\2):", text)
        elif pep695:
            pep695 = False
            text, params = _without_type_params(text)
        elif sys.version_info < (3, 12) and error.lineno and (older := _older_fstrings(text, error)) != text:
            text = older
        else:
            raise error
        try:
            tree = ast.parse(text, filename=path)
        except SyntaxError as still:
            error = still
            continue
        tree.__dict__[TYPE_PARAMS] = params
        return tree
    raise error


def _has_pep758(source: str) -> bool:
    """``bool(_PEP758.search(source))``, tried only at the start of the lines that hold ``except``: a Python 2 script
    comes here once per ``print`` statement its checks fix, and the pattern tried at every offset of a joined
    program cost more than the parse itself."""
    pos = source.find("except")
    while pos >= 0:
        start = source.rfind("\n", 0, pos) + 1
        if _PEP758.match(source, start):
            return True
        end = source.find("\n", pos)
        if end < 0:
            return False
        pos = source.find("except", end)
    return False


_PEP695_TYPE = re.compile(r"type[ \t]+\w+[ \t]*(?=[\[=])")
_PEP695_DEF = re.compile(r"(?:def|class)[ \t]+\w+[ \t]*(?=\[)")
_WORD = re.compile(r"\w")


def _has_pep695(source: str) -> bool:
    """``bool(_PEP695.search(source))`` (see :func:`_has_pep758`): each alternative's words found first, then the
    pattern's anchors checked where they are (the line's start before ``type``, a word boundary before ``def``)."""
    for words in (_PEP695_TYPE, _PEP695_DEF):
        pos = 0
        while (found := words.search(source, pos)) is not None:
            at = found.start()
            if words is _PEP695_TYPE and not source[source.rfind("\n", 0, at) + 1:at].strip(" \t"):
                return True
            if words is _PEP695_DEF and (at == 0 or not _WORD.match(source[at - 1])):
                return True
            pos = at + 1
    return False


def _without_type_params(source: str) -> tuple[str, dict[int, list[str]]]:
    """``source`` with its PEP 695 syntax rewritten, and ``{class line: [type parameter names]}``."""
    out, last, params = [], 0, {}
    for match in _PEP695.finditer(source):
        out.append(source[last:match.start()])
        out.append(f"{match.group(1)}{match.group(2)}" if match.group(2) else match.group(0))
        last = match.end()
        if source.startswith("[", last):  # drop the type parameters, each newline continued
            depth, end = 0, last
            while end < len(source):
                depth += {"[": 1, "]": -1}.get(source[end], 0)
                end += 1
                if depth == 0:
                    break
            if match.group(0).lstrip().startswith("class"):  # class C[T]: its parameters, for the generics rules
                params[source.count("\n", 0, match.start()) + 1] = re.findall(
                    r"(?:^|,)\s*\**(\w+)", source[last + 1:end - 1].replace("\n", " "))
            out.append(" \\\n" * source.count("\n", last, end))
            last = end
    out.append(source[last:])
    return "".join(out), params


_MOST_LINES_BACK = 50  # lines of one bracketed string group searched above the line an f-string error names


def _older_fstrings(source: str, error: SyntaxError) -> str:
    """``source`` with the f-strings on the line of ``error`` read the older way: each f-string starting there
    replaced by an empty string (:func:`~faultlib.readers.fstring_literals.blank_fstrings`), else, for an f-string
    started on an earlier line (triple-quoted), the ``f`` prefix of those on the line dropped. An f-string error
    (Python 3.11's ``f-string ...`` messages) on a line that starts no f-string is the end of a parenthesised group
    of strings -- ``(f"..." f"...{text.replace('\\n', ' ')}"`` then ``)`` on its own line: the 3.11 parser names the
    group's last line -- so the closest line above (at most :data:`_MOST_LINES_BACK`) that starts an f-string is
    blanked instead, one per round."""
    blank = blank_fstrings(source, error.lineno)
    if blank != source:
        return blank
    dropped = _without_f_prefix(source, error.lineno)
    if dropped != source or not str(error.msg).startswith("f-string"):
        return dropped
    for line in range(error.lineno - 1, max(0, error.lineno - 1 - _MOST_LINES_BACK), -1):
        blank = blank_fstrings(source, line)
        if blank != source:
            return blank
    return source


def _without_f_prefix(source: str, line: int) -> str:
    """``source`` with the ``f`` prefix of every string literal on ``line`` (1-based) removed."""
    before = source.split("\n", line - 1) if line > 0 else []  # the line's start, found in C
    if not 0 < line <= len(before):
        return source
    start = len(source) - len(before[-1])
    end = source.find("\n", start)
    end = len(source) if end < 0 else end
    changed = _F_PREFIX.sub(r"\1\2", source[start:end])
    return source if changed == source[start:end] else source[:start] + changed + source[end:]
