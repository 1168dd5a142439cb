"""What the static analysis reads: a script, or a notebook's code cells as one module, and :class:`SourceMap`
from its lines back to the user's file and cells.

The ``.ipynb`` file is JSON (nbformat 4): ``{"cells": [{"cell_type": "code", "source": str | [str]}, ...]}``.
It is read with the hardened JSON reader. Code cells are joined in order; IPython syntax that is not
Python (``%magic``, ``!shell``, ``?help``, a ``%%cell magic``) becomes an empty line (a ``%%`` cell is
skipped whole), so every other line keeps its place and a finding names its cell and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from faultlib.errors import InputError


@dataclass
class SourceMap:
    """Lines of the analysed text back to the user's file: a script's lines, or a notebook's cells.

    Attributes:
        file: the file the user passed.
        cells: for a notebook, ``(cell number, first line in the joined text, line count)`` per code cell
            (cell numbers count every cell from 1, as a notebook shows them).
    """

    file: str
    cells: list[tuple[int, int, int]] | None = None

    def where(self, line: int) -> dict[str, Any]:
        if not self.cells:
            return {"file": self.file, "line": line}
        for number, start, count in self.cells:
            if start <= line < start + count:
                return {"file": self.file, "line": line - start + 1, "index": number}
        return {"file": self.file, "line": line}

    def describe(self, line: int) -> str:
        at = self.where(line)
        return f"cell {at['index']} line {at['line']}" if "index" in at else f"line {line}"


def _text(source: Any, path: str, number: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise InputError(f"cell {number}: 'source' is neither a string nor a list of strings", path=path,
                     field=f"cells[{number - 1}].source")


def notebook_source(doc: Any, path: str) -> tuple[str, SourceMap]:
    """Join a parsed notebook's code cells.

    Args:
        doc: the parsed ``.ipynb`` JSON.
        path: the notebook file (for messages and the :class:`SourceMap`).

    Returns:
        ``(source, smap)``: the Python text and the map from its lines to ``(cell number, line)``;
        cells are numbered from 1 over all cells, markdown included, as Jupyter shows them.

    Raises:
        InputError: not a notebook (no ``cells`` list), a cell without a valid ``source``, or no code cells.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise InputError("is not a Jupyter notebook: expected a JSON object with a 'cells' list", path=path,
                         field="cells")
    lines: list[str] = []
    cells: list[tuple[int, int, int]] = []
    for number, cell in enumerate(doc["cells"], 1):
        if not isinstance(cell, dict):
            raise InputError(f"cell {number} is not an object", path=path, field=f"cells[{number - 1}]")
        if cell.get("cell_type") != "code":
            continue
        text = _text(cell.get("source", ""), path, number)
        cell_lines = text.splitlines() or [""]
        if cell_lines[0].lstrip().startswith("%%"):
            cell_lines = [""] * len(cell_lines)
        cleaned = []
        for line in cell_lines:
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")) or stripped.endswith("?") and not stripped.startswith("#"):
                cleaned.append("")
            else:
                cleaned.append(line)
        cells.append((number, len(lines) + 1, len(cleaned)))
        lines.extend(cleaned)
    if not cells:
        raise InputError("has no code cells", path=path)
    return "\n".join(lines) + "\n", SourceMap(path, cells)
