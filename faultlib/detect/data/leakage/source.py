"""What the static analysis reads: a script, or a notebook's code cells as one module, and :class:`SourceMap`
from its lines back to the user's file and cells.

The ``.ipynb`` file is JSON (nbformat 4): ``{"cells": [{"cell_type": "code", "source": str | [str]}, ...]}``;
nbformat 3 (``{"worksheets": [{"cells": [{"cell_type": "code", "input": ...}]}]}``) is read too.
It is read with the hardened JSON reader. Code cells are joined in order; IPython syntax that is not
Python (``%magic``, ``!shell``, ``x = !cmd``, ``?help``, a ``%%cell magic``) becomes a no-op of the same
indentation (``pass``, or ``x = None`` for an assignment), so a magic inside ``try:``/``if:`` keeps its
block valid, every other line keeps its place and a finding names its cell and line (a ``%%`` cell is
skipped whole, except a cell magic that runs its body as Python: ``%%time``, ``%%capture``, ...).
Doctest text (``>>> `` and ``... `` prompts, output lines) keeps only its code.

:func:`parse_tolerant` parses the joined text and skips what does not parse: a notebook cell, or a
script's top-level statement (Python 2 ``print x``, a pasted fragment), each reported back so the caller
can say which cell or lines were not analysed.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from faultlib.detect.data.leakage.py2print import rewrite_print, scan_brackets
from faultlib.detect.data.leakage.strlines import inside_strings


@dataclass
class SourceMap:
    """Lines of the analysed text back to the user's file: a script's lines, or a notebook's cells.

    Attributes:
        file: the file the user passed.
        cells: for a notebook, ``(cell number, first line in the joined text, line count)`` per code cell
            (cell numbers count every cell from 1, as a notebook shows them).
        files: for scripts analysed as one session (:mod:`~faultlib.detect.data.leakage.session`), ``(file, first
            line in the joined text, line count)`` per script, in the order they run; ``file`` is then the one the
            user asked about.
        inlined: the code cells of notebooks a notebook runs (``%run prep.ipynb``, :mod:`.nbrun`): ``(notebook,
            cell number, first line in the joined text, line count)`` per cell.
        unfollowed: the ``%run`` cells whose notebook was not followed: ``(notebook, cell number, why)``.
        parameter_cells: the numbers of this notebook's cells tagged ``parameters`` (papermill: their values are
            defaults a run may replace; :mod:`.moduleflags` decides no ``if`` by them).
    """

    file: str
    cells: list[tuple[int, int, int]] | None = None
    skipped: list[dict[str, Any]] = field(default_factory=list)
    files: list[tuple[str, int, int]] | None = None
    inlined: list[tuple[str, int, int, int]] = field(default_factory=list)
    unfollowed: list[tuple[str, int, str]] = field(default_factory=list)
    parameter_cells: frozenset[int] = frozenset()

    def where(self, line: int) -> dict[str, Any]:
        for name, number, start, count in self.inlined:
            if start <= line < start + count:
                return {"file": name, "line": line - start + 1, "index": number}
        if self.files:
            for name, start, count in self.files:
                if start <= line < start + count:
                    return {"file": name, "line": line - start + 1}
        if not self.cells:
            return {"file": self.file, "line": line}
        for number, start, count in self.cells:
            if start <= line < start + count:
                return {"file": self.file, "line": line - start + 1, "index": number}
        return {"file": self.file, "line": line}

    def describe(self, line: int) -> str:
        at = self.where(line)
        if "index" in at and at["file"] != self.file:  # a cell of a notebook this one runs
            return f"{at['file'].replace(chr(92), '/').rsplit('/', 1)[-1]} cell {at['index']} line {at['line']}"
        if "index" in at:
            return f"cell {at['index']} line {at['line']}"
        if not self.files:
            return f"line {line}"
        return f"{at['file'].replace(chr(92), '/').rsplit('/', 1)[-1]} line {at['line']}"

    def cell_span(self, line: int) -> tuple[int, int] | None:
        """The first and last joined lines of the notebook cell holding ``line`` (this notebook's or one it runs);
        ``None`` outside cells."""
        for _, _, start, count in self.inlined:
            if start <= line < start + count:
                return start, start + count - 1
        for _, start, count in self.cells or ():
            if start <= line < start + count:
                return start, start + count - 1
        return None

    def default_lines(self) -> frozenset[int]:
        """The joined lines of the cells tagged ``parameters`` (see ``parameter_cells``)."""
        return frozenset(line for number, start, count in self.cells or () if number in self.parameter_cells
                         for line in range(start, start + count))

    def order(self, file: str | None) -> int:
        """Where ``file`` runs in a session (0 for a single file or notebook): findings are sorted by it."""
        return next((i for i, (name, _, _) in enumerate(self.files or ()) if name == file), 0)


def notebook_source(doc: Any, path: str, *, runs: bool = False) -> tuple[str, SourceMap]:
    """Join a parsed notebook's code cells.

    Args:
        doc: the parsed ``.ipynb`` JSON.
        path: the notebook file (for messages and the :class:`SourceMap`).
        runs: put the code cells of a notebook that a cell runs (``%run prep.ipynb`` as its last line, a file
            beside this one) right after that cell, as IPython runs them (:mod:`.nbrun`).

    Returns:
        ``(source, smap)``: the Python text and the map from its lines to ``(cell number, line)``;
        cells are numbered from 1 over all cells, markdown included, as Jupyter shows them.

    Raises:
        InputError: not a notebook (no ``cells`` list), a cell without a valid ``source``, or no code cells.
    """
    lines: list[str] = []
    cells: list[tuple[int, int, int]] = []
    inlined: list[tuple[str, int, int, int]] = []
    unfollowed: list[tuple[str, int, str]] = []
    if runs:  # this notebook itself, taken (no lines): a notebook it runs that runs it back is not read again
        from pathlib import Path

        inlined.append((str(Path(path).resolve()), 0, 0, 0))
    for number, cell_lines, cleaned in code_cells(doc, path):
        cells.append((number, len(lines) + 1, len(cleaned)))
        lines.extend(cleaned)
        if runs:
            from faultlib.detect.data.leakage.nbrun import run_cells

            run_cells(cell_lines, path, lines, inlined, code_cells, cell=number, unfollowed=unfollowed)
    return "\n".join(lines) + "\n", SourceMap(path, cells, inlined=inlined, unfollowed=unfollowed,
                                             parameter_cells=parameter_cells(doc))


def parameter_cells(doc: Any) -> frozenset[int]:
    """The numbers (from 1, every cell counted) of the cells tagged ``parameters`` in their metadata (papermill
    documentation, "Parameterize": the cell tagged ``parameters`` holds the defaults; the injected cell after it sets
    the values of a run)."""
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return frozenset()
    out = set()
    for number, cell in enumerate(cells, 1):
        meta = cell.get("metadata") if isinstance(cell, dict) else None
        tags = meta.get("tags") if isinstance(meta, dict) else None
        if isinstance(tags, list) and "parameters" in tags:
            out.add(number)
    return frozenset(out)


def code_cells(doc: Any, path: str) -> list[tuple[int, list[str], list[str]]]:
    """A parsed notebook's code cells as ``(cell number, lines as written, lines as analysed)``: a ``%%`` cell that
    is not Python becomes blank lines, IPython syntax no-ops (:func:`clean_lines`).

    Raises:
        InputError: a notebook :func:`faultlib.readers.notebook.notebook_cells` refuses (not a notebook, a damaged
            cell, too much code).
    """
    from faultlib.readers.notebook import notebook_cells

    out: list[tuple[int, list[str], list[str]]] = []
    for cell in notebook_cells(doc, path):  # the readers check the structure (every cell, not only code cells)
        if cell.kind != "code":
            continue
        cell_lines = cell.source.splitlines() or [""]
        if cell_lines[0].lstrip().startswith("%%") and not runs_python(*cell_lines):
            cell_lines = [""] * len(cell_lines)
        out.append((cell.number, cell_lines, clean_lines(cell_lines)))
    return out


#: cell magics whose body IPython runs as Python in the user's namespace (IPython "Built-in magic commands":
#: ``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``, ``%%debug``; memory_profiler's ``%%memit``). Their first line
#: becomes a no-op and the body is analysed; any other ``%%`` cell (``%%bash``, ``%%writefile``, ``%%sql``,
#: ``%%html``, ...) holds no Python and is skipped whole.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit"})


def runs_python(first_line: str, *rest: str) -> bool:
    """``first_line`` (a cell's, starting with ``%%``) names a cell magic that runs the cell body as Python, and so
    does each ``%%`` line that directly follows it (``rest``: the cell's other lines; ``%%time`` then ``%%script
    false`` hands the code to the shell command ``false``, the usual way to switch a notebook cell off)."""
    from faultlib.detect.data.leakage.cellmagics import opens_python

    return opens_python([first_line, *rest], PYTHON_CELL_MAGICS)


_ASSIGN_SHELL = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[!%]")
_DOCTEST = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")


def clean_lines(lines: list[str]) -> list[str]:
    """IPython-only lines as no-ops of the same indentation; doctest prompts stripped, their output dropped.

    Args:
        lines: one cell's (or one script's) lines, without line ends.

    Returns:
        as many lines, each valid Python or empty. A line that continues a triple-quoted string (a docstring's
        ``>>>`` example) is text and stays as written (:func:`~faultlib.detect.data.leakage.strlines.inside_strings`).
    """
    in_string = inside_strings(lines)
    doctest = any(_DOCTEST.match(line) and line.lstrip().startswith(">>>") and not quoted
                  for line, quoted in zip(lines, in_string))
    out: list[str] = []
    depth, continued, in_example = 0, False, False
    for line, quoted in zip(lines, in_string):
        if quoted and not in_example:
            out.append(line)
            continue
        stripped = line.lstrip()
        indent = line[:len(line) - len(stripped)]
        inside = depth > 0 or continued  # `print("..."\n      % args)`: a continuation, not a magic
        depth = max(0, depth + scan_brackets(line)[0])
        continued = line.rstrip().endswith("\\")
        if inside and not (doctest and in_example):
            out.append(line)
            continue
        if doctest:
            m = _DOCTEST.match(line)
            if m:
                out.append(line[m.end():])
                in_example = True
                continue
            if in_example and stripped:
                out.append("")  # the example's output, up to the next blank line
                continue
            in_example = False
        assign = _ASSIGN_SHELL.match(line)
        if assign:
            out.append(f"{assign.group(1)}{assign.group(2)} = None")
        elif stripped.startswith(("%", "!")) or (stripped.endswith("?") and not stripped.startswith("#")
                                                 and "#" not in stripped):
            out.append(f"{indent}pass")
        else:
            out.append(line)
    return out


def _chunk(lines: list[str], lineno: int) -> tuple[int, int]:
    """The top-level statement around 1-based ``lineno``: from the last unindented line at or before it to
    the line before the next unindented line (``else:``/``except`` lines belong to the statement)."""
    start = max(1, min(lineno, len(lines)))
    while start > 1 and (not lines[start - 1].strip() or lines[start - 1][:1] in " \t"):
        start -= 1
    end = start
    while end < len(lines):
        nxt = lines[end]
        if nxt.strip() and nxt[:1] not in " \t#" and not re.match(r"(else|elif|except|finally)\b|[)\]}]", nxt):
            break
        end += 1
    return start, end


def parse_tolerant(source: str, smap: SourceMap, *, max_skips: int = 200) -> ast.Module:
    """Parse ``source``, skipping the notebook cells or top-level statements that are not valid Python.

    A script exported from a notebook gets its ``%%time`` cells' code back in place
    (:func:`~faultlib.detect.data.leakage.cellmagics.inline_cell_magics`). Each skip blanks the lines (so every other line keeps its number) and is recorded in
    ``smap.skipped`` as ``{"index": cell}`` or ``{"line": first, "end_line": last}`` with the parser's message.

    Raises:
        SyntaxError: nothing that parses is left (every cell skipped, or more than half of a script's code
            lines), or more than ``max_skips`` skips were needed; the error is the first one met.
        InputError: nested too deeply for the parser, or not text it reads (NUL bytes): from the static checks'
            shared :func:`~faultlib.readers.pysource.parse_python`, in its words.
    """
    from faultlib.detect.data.leakage.cellmagics import inline_cell_magics
    from faultlib.detect.data.leakage.reparse import Reparser

    skipped = len(smap.skipped)
    for resume in (True, False):  # parsing on from checkpoints (reparse.py); without, should the whole text not parse
        lines = source.split("\n")
        del smap.skipped[skipped:]
        tree = _fix_until_parsed(lines, smap, max_skips, Reparser(lines, smap.file, resume=resume))
        if tree is not None and "run_cell_magic" not in source and source.isascii():
            return tree  # no call to inline: the walk of every node for one is left out (an ASCII text spells the
            # attribute as the tree holds it; elsewhere NFKC-normalised identifiers may differ from the text)
        if tree is not None:
            return inline_cell_magics(tree, PYTHON_CELL_MAGICS, clean_lines)
    raise AssertionError("unreachable: the loop without checkpoints parses the whole text or raises")


def _fix_until_parsed(lines: list[str], smap: SourceMap, max_skips: int, parser) -> ast.Module | None:
    """:func:`parse_tolerant`'s loop: parse, fix what the error names, parse again (``None``: the checkpoints of
    ``parser`` were wrong, see :meth:`~faultlib.detect.data.leakage.reparse.Reparser.whole`)."""
    code = sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))
    blanked = 0
    first: SyntaxError | None = None
    for _ in range(max_skips + 1):
        try:
            return parser.whole(parser.parse())
        except SyntaxError as exc:
            first = first or exc
            lineno = exc.lineno or 1
            if ("Missing parentheses" in str(exc.msg) or "invalid syntax" in str(exc.msg)) \
                    and rewrite_print(lines, lineno):  # Python 2 ``print x`` (one line or several): print(x)
                parser.fixed(lineno)
                continue
            after = re.search(r"after (?:'\w+' statement|function definition|class definition) on line (\d+)",
                              str(exc.msg))
            if after:  # the statement whose body is missing (a magic removed by a converter; an exercise stub, a
                # ``def`` left with only a comment for the student): skip its cell, not the one the parser stopped in
                lineno = int(after.group(1))
            at = smap.where(lineno)
            if smap.cells and "index" in at and smap.cell_span(lineno) is not None:
                lo, hi = smap.cell_span(lineno)
                entry = {"index": at["index"]} if at["file"] == smap.file else {"file": at["file"],
                                                                                  "index": at["index"]}
            else:
                lo, hi = _chunk(lines, lineno)
                entry = {"line": lo, "end_line": hi}
            if all(not lines[i - 1].strip() for i in range(lo, hi + 1)):
                raise first from None  # nothing left to blank: the error is not inside one statement
            blanked += sum(1 for i in range(lo, hi + 1) if lines[i - 1].strip())
            for i in range(lo, hi + 1):
                lines[i - 1] = ""
            parser.fixed(lineno)
            smap.skipped.append({**entry, "message": f"{exc.msg} ({smap.describe(lineno)})"})
            if smap.cells:
                if len(smap.skipped) >= len(smap.cells):
                    raise first from None
            elif blanked * 2 > code:
                raise first from None
    raise first if first else SyntaxError("too many statements that do not parse")
