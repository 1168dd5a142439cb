"""Notebooks as writers and readers of the files a project's code hands on, for the static leakage analysis.

A course or Kaggle project often prepares its data in one notebook and models in another: ``EDA.ipynb`` fills the
NaNs with the mean of every row (or fits a scaler, an imputer, an encoder, a selector on them) and ends with
``df.to_csv("clean.csv")``; ``Modeling.ipynb`` (or ``model.py``) starts with ``pd.read_csv("clean.csv")`` and splits,
cross-validates or scores it. Neither notebook shows the leak alone (waves 33, 46, 55, 66: the lendingclub, madelon,
ADNI and HR workbooks). The project index (:mod:`.repofiles`) took ``.py`` scripts only; this module lets notebooks
take part in it as scripts do:

* :func:`project_notebooks` lists a root's notebooks (checkpoint copies and environments skipped, at most
  :data:`MAX_NOTEBOOKS`);
* :func:`notebook_code` reads a notebook's code cells through the hardened reader the check uses for a notebook
  (:func:`faultlib.readers.notebook.load_notebook`, :func:`~.source.code_cells`: its size bounds, IPython syntax made
  no-ops), and :func:`notebook_tree` parses them tolerantly (a cell that is not Python is skipped);
* :func:`join_program` joins scripts and notebooks into one program for the hand-on join, a notebook's lines mapped
  back to its cells (:class:`~.source.SourceMap` ``inlined``), so a finding in it names its cell and line as the
  check does for a notebook alone; :func:`place` does the same for a line of the index.

The index's cache is keyed by each notebook's code text as for scripts (:mod:`.repocache`): its outputs (plots,
tables) change no key. In one process a notebook's code is read again whenever its size or time changes.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the most notebooks of one root taken into its index (a larger folder is a collection, not one project)
MAX_NOTEBOOKS = 200
#: folders never listed (environments, caches, vendored packages), as for scripts
_SKIP = frozenset({"site-packages", "node_modules", "__pycache__", "venv", ".venv", "env", "build", "dist"})


def is_notebook(path: str | Path) -> bool:
    """The file is a Jupyter notebook (``.ipynb``); its name tested as text (:func:`project_notebooks` asks it of
    every file of a root)."""
    return str(path).lower().endswith(".ipynb")


def project_notebooks(root: Path) -> list[Path]:
    """The notebooks under a project root, in path order, at most :data:`MAX_NOTEBOOKS` (``.ipynb_checkpoints``
    and other hidden folders, environments and caches skipped)."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP)
        for name in sorted(filenames):
            if is_notebook(name):
                out.append(Path(dirpath) / name)
                if len(out) >= MAX_NOTEBOOKS:
                    return out
    return out


def notebook_code(path: str | Path) -> tuple[str, tuple[tuple[int, int, int], ...]] | None:
    """A notebook's code cells as one text and its cells as ``(cell number, first line, line count)``; ``None`` when
    it cannot be read (too large, not JSON, not a notebook) or holds no code."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return _code(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=1024)
def _code(path: str, size: int, mtime: int) -> tuple[str, tuple[tuple[int, int, int], ...]] | None:
    """:func:`notebook_code` of the notebook at ``path`` as it is at that size and time (each change reads it
    again)."""
    from faultlib.detect.data.leakage.source import code_cells
    from faultlib.errors import InputError
    from faultlib.readers.notebook import load_notebook

    try:
        doc = load_notebook(path)
        cells = code_cells(doc, path) if doc is not None else []
    except (InputError, OSError, RecursionError):
        return None
    lines: list[str] = []
    spans = []
    for number, _, cleaned in cells:
        spans.append((number, len(lines) + 1, len(cleaned)))
        lines.extend(cleaned)
    return ("\n".join(lines) + "\n", tuple(spans)) if lines else None


def notebook_tree(path: str | Path) -> ast.Module | None:
    """The parsed code cells of a notebook (cells that are not Python skipped), or ``None``."""
    code = notebook_code(path)
    return None if code is None else code_tree(str(path), *code)


@lru_cache(maxsize=256)
def code_tree(path: str, text: str, cells: tuple[tuple[int, int, int], ...]) -> ast.Module | None:
    """The tree of a notebook's code text (:func:`notebook_code`), shared by text."""
    from faultlib.detect.data.leakage.source import SourceMap, parse_tolerant
    from faultlib.errors import InputError

    try:
        return parse_tolerant(text, SourceMap(path, list(cells)))
    except (SyntaxError, InputError, RecursionError, ValueError):
        return None


def place(path: str | Path, line: int) -> dict[str, int]:
    """Where a line of the index (a line of a notebook's joined code, or of a script) is in the file:
    ``{"index": cell, "line": line in it}`` for a notebook, ``{"line": line}`` for a script."""
    code = notebook_code(path) if is_notebook(path) else None
    for number, start, count in code[1] if code is not None else ():
        if start <= line < start + count:
            return {"index": number, "line": line - start + 1}
    return {"line": line}


def shown_place(path: str | Path, line: int) -> str:
    """:func:`place` in words: ``cell 4 line 2`` or ``line 7``."""
    at = place(path, line)
    return f"cell {at['index']} line {at['line']}" if "index" in at else f"line {at['line']}"


def join_program(paths: list[str], entry: str | None = None) -> tuple[str, Any]:
    """One program from scripts and notebooks run in order (a writer notebook, then the scripts or notebook that
    read its file); consecutive scripts are joined as a session (:func:`~.session.join_scripts`), a notebook
    adds the project modules it imports and its code cells. ``smap.files`` names every member and its lines; ``smap.inlined`` maps a notebook's
    lines to its cells. A notebook that cannot be read adds nothing.

    Raises:
        InputError: a script cannot be read.
    """
    from faultlib.detect.data.leakage.nbimports import with_imported_modules
    from faultlib.detect.data.leakage.session import join_scripts
    from faultlib.detect.data.leakage.source import SourceMap

    lines: list[str] = []
    files: list[tuple[str, int, int]] = []
    inlined: list[tuple[str, int, int, int]] = []
    scripts: list[str] = []

    def flush() -> None:
        if scripts:
            source, smap = join_scripts(list(scripts), scripts[-1])
            files.extend((name, start + len(lines), count) for name, start, count in smap.files or ())
            lines.extend(source.split("\n")[:-1])
            scripts.clear()

    for p in paths:
        if not is_notebook(p):
            scripts.append(p)
            continue
        flush()
        code = notebook_code(p)
        if code is None:
            continue
        text, cells = code
        # the project modules its cells import run first, as in its own analysis (nbimports.py); one an earlier
        # member of the program already ran is not run again
        joined, nmap = with_imported_modules(p, text, SourceMap(p, list(cells)))
        own, base = joined.split("\n")[:-1], len(lines)
        ran = {Path(name).resolve() for name, _, _ in files}
        for name, start, count in nmap.files or ():
            if Path(name).resolve() in ran:
                own[start - 1:start - 1 + count] = [""] * count
            else:
                files.append((name, base + start, count))
        first = sum(count for _, _, count in nmap.files or ()) + 1
        files.append((p, base + first, len(own) - first + 1))
        inlined.extend((p, number, base + start, count) for number, start, count in nmap.cells or ())
        lines.extend(own)
    flush()
    return "\n".join(lines) + "\n", SourceMap(entry or paths[-1], None, files=files, inlined=inlined)


__all__ = ["MAX_NOTEBOOKS", "code_tree", "is_notebook", "join_program", "notebook_code", "notebook_tree", "place",
           "project_notebooks", "shown_place"]
