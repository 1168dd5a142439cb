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

Bounds: a notebook beside the running one (or under its folder, reached without a symbolic link: the readers'
:func:`~faultlib.readers.files.inside`), named by a constant path ending in ``.ipynb``;
nested runs are followed to :data:`MAX_DEPTH`, at most :data:`MAX_RUNS` notebooks per analysis, none twice (a
cycle stops there). A run notebook that is not followed -- not there, outside the folder or reached through a
link, unreadable or not a notebook, past the bounds -- leaves its ``%run`` a no-op and is recorded in ``unfollowed``
(``(notebook, cell number, why)``), so the report is not ``complete``: code the notebook runs was not
analysed (issue 17: ``complete`` only when everything reachable was). A cycle is no gap (the notebook is read).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

#: ``%run prep.ipynb``, ``%run "./prep.ipynb"``, ``%run -i prep.ipynb`` (options before the file)
_RUN = re.compile(r"""^\s*%run\s+(?:-\w+\s+)*(["']?)([^"'\s]+\.ipynb)\1\s*$""")
#: how deep runs inside run notebooks are followed
MAX_DEPTH = 3
#: notebooks put into one analysis at most
MAX_RUNS = 8


def run_target(cell_lines: list[str], path: str) -> tuple[Path | None, str | None]:
    """The notebook a cell runs as its last code line (``%run prep.ipynb``), resolved beside ``path``, as
    ``(target, None)``; ``(None, None)`` when the cell runs none, ``(None, why)`` when it names one that cannot be
    followed (outside the folder or through a symbolic link, not there)."""
    code = [line for line in cell_lines if line.strip() and not line.lstrip().startswith("#")]
    match = _RUN.match(code[-1]) if code else None
    if match is None:
        return None, None
    from faultlib.errors import InputError
    from faultlib.readers.files import inside

    base = Path(path).resolve().parent
    try:  # the one hardened path: inside the running notebook's folder, no symlink on the way (followed or not)
        target = inside(base, match.group(2))
    except InputError:
        return None, f"{match.group(2)} is outside the notebook's folder or reached through a symbolic link"
    if target == base or not target.is_file():
        return None, f"{match.group(2)} is not there"
    return target, None


def run_cells(cell_lines: list[str], path: str, lines: list[str], inlined: list[tuple[str, int, int, int]],
              code_cells: Callable[[Any, str], list[tuple[int, list[str], list[str]]]], depth: int = 0, *,
              cell: int = 0, unfollowed: list[tuple[str, int, str]] | None = None) -> None:
    """Append the code cells of the notebook the cell (``cell_lines``, number ``cell`` in the notebook ``path``)
    runs to ``lines``, recording each as ``(notebook, cell number, first line, line count)`` in ``inlined``; their
    own ``%run`` cells are followed likewise, within the bounds. A run notebook not followed is appended to
    ``unfollowed`` as ``(notebook, cell number, why)``. ``code_cells`` reads a parsed notebook's code cells
    as ``(number, lines as written, lines as analysed)`` (:func:`~.source.code_cells`)."""
    from faultlib.errors import InputError
    from faultlib.readers.notebook import load_notebook

    gaps = unfollowed if unfollowed is not None else []
    target, why = run_target(cell_lines, path)
    if target is None:
        if why:
            gaps.append((path, cell, why))
        return
    seen = {name for name, *_ in inlined}
    if str(target) in seen:  # a cycle or a repeat: that notebook is in the analysis already
        return
    if depth >= MAX_DEPTH or len(seen) > MAX_RUNS:
        gaps.append((path, cell, f"{target.name} is past the bounds followed ({MAX_DEPTH} runs deep, "
                                              f"{MAX_RUNS} notebooks)"))
        return
    try:
        member_cells = code_cells(load_notebook(target), str(target))
    except InputError as exc:  # unreadable, too large, not a notebook: the %run stays a no-op
        gaps.append((path, cell, f"{target.name} could not be read ({exc})"))
        return
    inlined.append((str(target), 0, 0, 0))  # taken (no lines): a cycle or a repeat stops here
    for number, member, cleaned in member_cells:
        inlined.append((str(target), number, len(lines) + 1, len(cleaned)))
        lines.extend(cleaned)
        run_cells(member, str(target), lines, inlined, code_cells, depth + 1, cell=number, unfollowed=gaps)


__all__ = ["MAX_DEPTH", "MAX_RUNS", "run_cells", "run_target"]
