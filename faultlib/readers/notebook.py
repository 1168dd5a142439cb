"""Jupyter notebooks (``.ipynb``): JSON whose bulk is usually cell outputs (plots as base64, long logs).

The code a static check reads is small, but a notebook with a few plots is often tens of MB: the general JSON
bound (4 MiB, for configs) refused such notebooks. A notebook is read with its own bounds (:data:`NOTEBOOK`),
through the same hardened JSON reader (depth, value count, finite numbers, no duplicate keys).

Its structure is checked here too, once for every caller (:func:`notebook_cells`), against what nbformat's own
schemas require of a cell (``nbformat/v4/nbformat.v4.schema.json``: a ``cells`` list of objects, each with a
``cell_type`` of ``code``, ``markdown`` or ``raw`` and a ``source`` that is a string or a list of strings; nbformat 3
keeps cells in ``worksheets``, a code cell's text in ``input``, and adds ``heading`` cells). A cell that breaks it
is bad input (exit 2, naming the cell and field), never a cell silently taken as "not code" (the report would say
"ok" about code it never read). The code cells together are bounded like a Python file
(:data:`CODE_MAX_BYTES`): outputs may make a notebook hundreds of MB, its code is read and parsed whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.readers.files import DEFAULT, Limits, MiB, read_bytes
from faultlib.readers.jsondoc import load_json
from faultlib.readers.sizes import FileTooLarge, allowed

#: a notebook's bounds: 256 MiB (outputs included), 64 levels, 5 million JSON values
NOTEBOOK = Limits(max_bytes=256 * MiB, max_depth=64, max_nodes=5_000_000)
CLEAR = "clear its outputs first (jupyter nbconvert --clear-output --inplace NOTEBOOK.ipynb)"
#: the cell types of nbformat 4 (``code``, ``markdown``, ``raw``) and nbformat 3 (``heading`` besides)
CELL_TYPES = ("code", "markdown", "raw", "heading")
#: the code cells of one notebook together, as UTF-8: the bound of a Python source file (:data:`DEFAULT`)
CODE_MAX_BYTES = DEFAULT.max_bytes


@dataclass(frozen=True)
class Cell:
    """One cell of a notebook.

    Attributes:
        number: its place among all cells, from 1 (markdown included), as Jupyter shows it.
        kind: its ``cell_type`` (one of :data:`CELL_TYPES`).
        source: a code cell's text (``source`` joined; nbformat 3: ``input``); ``""`` for any other cell.
    """

    number: int
    kind: str
    source: str


def load_notebook(path: Path | str, *, limits: Limits = NOTEBOOK) -> Any | None:
    """The parsed notebook at ``path``, or None when the file is empty (only whitespace).

    Raises:
        InputError: unreadable, larger than ``limits`` (the message says to clear the outputs), or not JSON
            (line and column). The notebook's structure is checked by :func:`notebook_cells`.
    """
    try:
        data = read_bytes(path, limits=limits)
    except FileTooLarge as exc:
        raise FileTooLarge(path, exc.size, exc.limit, advice=CLEAR) from None
    if not data.strip():
        return None
    return load_json(data, path, limits=limits)


def notebook_cells(doc: Any, path: Path | str) -> list[Cell]:
    """The cells of a parsed notebook (nbformat 4, or nbformat 3's worksheets), checked.

    Raises:
        InputError: not a notebook (no ``cells`` list), a cell that is not an object, a ``cell_type`` missing or
            not one of :data:`CELL_TYPES`, a code cell's ``source`` that is neither a string nor a list of strings
            (each naming the field: ``cells[3].cell_type``), or code cells larger together than
            :data:`CODE_MAX_BYTES` (:class:`~faultlib.readers.sizes.FileTooLarge`).
    """
    path = str(path)
    cells, prefix = _raw_cells(doc, path)
    out: list[Cell] = []
    code_bytes, bound = 0, allowed(CODE_MAX_BYTES)
    for number, cell in enumerate(cells, 1):
        field = prefix(number - 1)
        if not isinstance(cell, dict):
            raise InputError(f"cell {number} is not an object", path=path, field=field)
        kind = cell.get("cell_type")
        if kind not in CELL_TYPES:
            said = "has no 'cell_type'" if "cell_type" not in cell else f"has the cell_type {_shown(kind)}"
            raise InputError(f"cell {number} {said}, not one of {', '.join(CELL_TYPES)}: the notebook is damaged; "
                             "open and save it in Jupyter, or fix that cell", path=path, field=f"{field}.cell_type")
        if kind != "code":
            out.append(Cell(number, kind, ""))
            continue
        key = "source" if "source" in cell or "input" not in cell else "input"
        text = _text(cell.get(key, ""), path, number, f"{field}.{key}")
        code_bytes += len(text.encode("utf-8", "surrogatepass"))
        out.append(Cell(number, kind, text))
    if code_bytes > bound:  # outputs are not code: only the code cells count against a source file's bound
        raise FileTooLarge(path, code_bytes, bound, subject="code (its code cells together)")
    return out


def _raw_cells(doc: Any, path: str):
    """The notebook's cell list and how a cell's field is named (``cells[i]`` or ``worksheets[w].cells[i]``)."""
    if isinstance(doc, dict) and "cells" not in doc and isinstance(doc.get("worksheets"), list):  # nbformat 3
        places = [(w, i) for w, sheet in enumerate(doc["worksheets"]) if isinstance(sheet, dict)
                  and isinstance(sheet.get("cells"), list) for i in range(len(sheet["cells"]))]
        cells = [doc["worksheets"][w]["cells"][i] for w, i in places]
        return cells, lambda n: f"worksheets[{places[n][0]}].cells[{places[n][1]}]"
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise InputError("is not a Jupyter notebook: expected a JSON object with a 'cells' list", path=path,
                         field="cells")
    return doc["cells"], lambda n: f"cells[{n}]"


def _text(source: Any, path: str, number: int, field: str) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise InputError(f"cell {number}: '{field.rsplit('.', 1)[-1]}' is neither a string nor a list of strings",
                     path=path, field=field)


def _shown(value: Any) -> str:
    """A JSON value as the message shows it: short, one line (a damaged cell's type may be anything)."""
    import json

    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["CELL_TYPES", "CODE_MAX_BYTES", "NOTEBOOK", "Cell", "load_notebook", "notebook_cells"]
