"""Parsing a user's Python source for the static checks (``check blocking``, ``check resume``, ``check leakage``).

The text comes through :func:`faultlib.readers.read_text` (bounded, UTF-8, no symlinks); this module turns it into
an :mod:`ast` tree or an :class:`~faultlib.errors.InputError` (exit 2) naming the file, line and column. The
source is parsed, never compiled or run. Syntax newer than the running interpreter's (Python 3.12's type
parameters and f-strings, 3.14's ``except A, B:``) is rewritten in place first
(:mod:`faultlib.readers.newer_syntax`), so every static check reads it alike.
"""

from __future__ import annotations

import ast

from faultlib.errors import InputError
from faultlib.readers.newer_syntax import parse_newer_syntax

#: CPython's tokenizer limits (its MAXLEVEL of 200 open brackets, MAXINDENT of 100 blocks), which it reports as a
#: :class:`SyntaxError` of valid code: the source is too deep for the parser, not wrong
PARSER_LIMITS = ("too many nested parentheses", "too many levels of indentation")


def parse_python(source: str, path: str, *, keep_syntax_errors: bool = False) -> ast.Module:
    """Parse ``source`` (newer syntax rewritten, lines kept); a syntax error is bad input (exit 2) naming the line
    and column.

    Args:
        keep_syntax_errors: let :class:`SyntaxError` through, for a caller that skips the statement or notebook
            cell that does not parse and parses the rest again (``check leakage``); every other failure is still
            the :class:`~faultlib.errors.InputError` below, in the same words for every static check.

    Raises:
        InputError: not valid Python, or nested too deeply (or too large) for the parser: deeper than its bracket
            or indentation limit (:data:`PARSER_LIMITS`) is this error even with ``keep_syntax_errors``.
        SyntaxError: only with ``keep_syntax_errors``; past newer syntax, the first error the rewritten text raises.
    """
    try:
        return _parse(source, path)
    except SyntaxError as exc:
        line = exc.lineno or 1
        if str(exc.msg).startswith(PARSER_LIMITS):  # valid Python, deeper than CPython's tokenizer goes: never a
            # statement a tolerant caller skips (and reports "ok" about), bad input for every check alike
            raise InputError(f"cannot be parsed as Python (line {line}): it is nested too deeply for the parser "
                             f"({exc.msg}): split it into statements", path=path, line=line) from None
        if keep_syntax_errors:
            raise
        raise InputError(f"is not valid Python (line {line}, column {exc.offset or 0}): {exc.msg}", path=path,
                         line=line) from None
    except RecursionError:  # CPython's own compiler refuses such a file too ("too complex")
        raise InputError("cannot be parsed as Python: an expression is nested too deeply for the parser (thousands "
                         "of chained calls, attributes or operators): split it into statements", path=path) from None
    except MemoryError:  # CPython's parser stack overflows on deeply nested lambdas, brackets or indentation
        raise InputError("cannot be parsed as Python: it is nested too deeply for the parser (the parser's stack "
                         "ran out: thousands of nested lambdas, brackets or blocks): split it into statements",
                         path=path) from None
    except ValueError as exc:
        raise InputError(f"cannot be parsed as Python: {type(exc).__name__}: {exc}", path=path) from None


def _parse(source: str, path: str) -> ast.Module:
    """``ast.parse``, and on a syntax error (not a parser limit) the same source with its newer syntax rewritten."""
    try:
        return ast.parse(source, filename=path)
    except SyntaxError as exc:
        if str(exc.msg).startswith(PARSER_LIMITS):
            raise
        error = exc
    return parse_newer_syntax(source, path, error)
