"""Notebooks that a notebook runs (``%run prep.ipynb``), for the static leakage analysis.

A course or Kaggle project often keeps its data preparation in one notebook and runs it at the top of every
modelling notebook: ``%run preprocessing.ipynb`` executes that notebook's code cells in the same namespace
(IPython ``%run``: "a notebook is run as a Python script, in the current namespace"), so the scaler fitted there
on every row and the split made there are part of the modelling notebook's program. Read alone, the modelling
notebook scores ``X_test`` that nothing defines and the leak is invisible (wave 45: three fraud notebooks ran one
preparation notebook that standardised ``Amount`` over all rows before the split).

:func:`run_cells` puts the run notebook's code cells right after the cell that runs it (the ``%run`` must be that
cell's last code line, as it is in practice: the usual cell holds nothing else), so each line keeps its place and
a finding in them names that notebook, its cell and line (:class:`~.source.SourceMap` ``inlined``).

Bounds: a notebook beside the running one (or under its folder), named by a constant path ending in ``.ipynb``;
nested runs are followed to :data:`MAX_DEPTH`, at most :data:`MAX_RUNS` notebooks per analysis, none twice (a
cycle stops there). A notebook that cannot be read or is not a notebook is left out (the ``%run`` stays a no-op).
"""

from __future__ import annotations

import re
from pathlib import Path

#: ``%run prep.ipynb``, ``%run "./prep.ipynb"``, ``%run -i prep.ipynb`` (options before the file)
_RUN = re.compile(r"""^\s*%run\s+(?:-\w+\s+)*(["']?)([^"'\s]+\.ipynb)\1\s*$""")
#: how deep runs inside run notebooks are followed
MAX_DEPTH = 3
#: notebooks put into one analysis at most
MAX_RUNS = 8


def run_target(cell_lines: list[str], path: str) -> Path | None:
    """The notebook a cell runs as its last code line (``%run prep.ipynb``), resolved beside ``path``; ``None`` when
    the cell runs none, or the file is not there."""
    code = [line for line in cell_lines if line.strip() and not line.lstrip().startswith("#")]
    match = _RUN.match(code[-1]) if code else None
    if match is None:
        return None
    base = Path(path).resolve().parent
    target = (base / match.group(2)).resolve()
    if base not in target.parents or not target.is_file():
        return None
    return target


def run_cells(cell_lines: list[str], path: str, lines: list[str], inlined: list[tuple[str, int, int, int]],
              depth: int = 0) -> None:
    """Append the code cells of the notebook the cell (``cell_lines``, in the notebook ``path``) runs to
    ``lines``, recording each as ``(notebook, cell number, first line, line count)`` in ``inlined``; their own
    ``%run`` cells are followed likewise, within the bounds."""
    from faultlib.detect.data.leakage.source import clean_lines, runs_python, _text
    from faultlib.errors import InputError
    from faultlib.readers.notebook import load_notebook

    target = run_target(cell_lines, path)
    seen = {name for name, *_ in inlined}
    if target is None or depth >= MAX_DEPTH or str(target) in seen or len(seen) > MAX_RUNS:
        return
    try:
        doc = load_notebook(target)
    except InputError:
        return
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return
    inlined.append((str(target), 0, 0, 0))  # taken (no lines): a cycle or a repeat stops here
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        try:
            member = _text(cell.get("source", ""), str(target), number).splitlines() or [""]
        except InputError:
            continue
        if member[0].lstrip().startswith("%%") and not runs_python(member[0]):
            member = [""] * len(member)
        cleaned = clean_lines(member)
        inlined.append((str(target), number, len(lines) + 1, len(cleaned)))
        lines.extend(cleaned)
        run_cells(member, str(target), lines, inlined, depth + 1)


__all__ = ["MAX_DEPTH", "MAX_RUNS", "run_cells", "run_target"]
