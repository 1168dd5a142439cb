"""Parsing again after a fix, from the last top-level statement known to parse: :func:`parse_tolerant`'s loop in
linear time.

:func:`~faultlib.detect.data.leakage.source.parse_tolerant` fixes one statement (a Python 2 ``print`` rewritten, a
fragment blanked) and parses again until the text parses. Parsing the whole text each time made a Python 2 script of
a few hundred ``print`` statements (competition code of before 2018) cost hundreds of parses of the whole file, and a
session or a writer joined with its readers (:mod:`.repofiles`) paid it again for every join.

:class:`Reparser` parses only what follows a *checkpoint*: a line ``c`` such that ``lines[:c]`` parses as a module by
itself and ``lines[c]`` starts a top-level statement (unindented code, not ``else``/``elif``/``except``/``finally``).
The tokenizer is then at a statement boundary there (no open bracket or string, no indentation), so the first error
of the whole text is the first error of the text after ``c`` with the lines before it blank (same line numbers, same
message), and the text parses iff that part does. A checkpoint is proposed at the start of the top-level statement
holding an error (decorators included) and kept only when the lines between the previous checkpoint and it parse;
a fix that changes a line above a checkpoint drops it. When the loop ends, the whole text is parsed once more for the
tree (:meth:`Reparser.whole`).
"""

from __future__ import annotations

import ast
import re

from faultlib.readers.pysource import parse_python

#: unindented lines that continue the statement above them, never a checkpoint
_CONTINUES = re.compile(r"(else|elif|except|finally)\b")


def _starts_statement(line: str) -> bool:
    return bool(line.strip()) and line[:1] not in " \t\f#@)]}" and not _CONTINUES.match(line)


class Reparser:
    """The parses of one :func:`parse_tolerant` loop over ``lines`` (a list it changes in place between parses)."""

    def __init__(self, lines: list[str], path: str, *, resume: bool = True) -> None:
        self.lines, self.path, self.resume = lines, path, resume
        self.checkpoints = [0]
        self._before = list(lines)

    def _text(self, start: int, end: int | None = None) -> str:
        return "\n".join([""] * start + self.lines[start:end])

    def parse(self) -> ast.Module:
        """Parse from the last checkpoint on (raises the :class:`SyntaxError` the whole text raises)."""
        return parse_python(self._text(self.checkpoints[-1]), self.path, keep_syntax_errors=True)

    def fixed(self, lineno: int) -> None:
        """The loop changed ``lines`` after an error on 1-based ``lineno``: drop the checkpoints below a changed line
        and propose one at the start of the top-level statement holding the error."""
        if not self.resume:
            return
        changed = next((i for i, (a, b) in enumerate(zip(self._before, self.lines)) if a != b), len(self.lines))
        self._before = list(self.lines)
        while self.checkpoints[-1] > changed:
            self.checkpoints.pop()
        start = min(lineno - 1, changed, len(self.lines) - 1)
        while start > self.checkpoints[-1] and not _starts_statement(self.lines[start]):
            start -= 1
        while start > self.checkpoints[-1] and self.lines[start - 1][:1] == "@":  # its decorators
            start -= 1
        if start <= self.checkpoints[-1] or not _starts_statement(self.lines[start]):
            return
        try:
            parse_python(self._text(self.checkpoints[-1], start), self.path, keep_syntax_errors=True)
        except Exception:  # noqa: BLE001 -- whatever stops the parse there: not a boundary, no checkpoint
            return
        self.checkpoints.append(start)

    def whole(self, tree: ast.Module) -> ast.Module | None:
        """The tree of the whole text, given the tree of the part after the last checkpoint; ``None`` when the whole
        text does not parse (the checkpoints were wrong: the caller starts over without them)."""
        if self.checkpoints[-1] == 0:
            return tree
        try:
            return parse_python(self._text(0), self.path, keep_syntax_errors=True)
        except Exception:  # noqa: BLE001 -- any failure means: start over the slow, sure way
            return None


__all__ = ["Reparser"]
