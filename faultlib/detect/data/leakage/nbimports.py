"""The project's own modules a notebook imports, joined with its cells, for the static leakage analysis.

A notebook often keeps its steps in the project's modules and only calls them: ``sys.path.append('../src')``, then
``from preprocessing import scale_features`` and ``from model_utils import cross_validate_model``. The scaler is
fitted inside one helper and the cross-validation runs inside another; read alone, the notebook calls two unknown
functions and the leak between them is invisible (wave 67: a heart-disease project's notebooks, every step in
``src/``). Python runs those modules' code in the notebook's interpreter when it imports them, so they are part of
its program exactly as they are of a script's (:mod:`.session`).

:func:`with_imported_modules` finds them with the same import resolution as a script's session
(:mod:`.projimports`: a module beside the notebook, a package under its folder or an ancestor, a folder it puts on
``sys.path`` with a literal path, relative to the notebook's folder, where Jupyter runs it), and those modules'
own imports; it puts their text before the cells (:func:`~.session.join_scripts`: the import lines become
``pass``, ``helpers.f`` becomes ``f``, an imported module's ``__main__`` block is blanked) and moves the cells'
lines after them, so a finding in a module names its file and line (:class:`~.source.SourceMap` ``files``) and one
in the notebook its cell. Only imports count: unlike a script's session, a sibling that merely defines a name the
notebook calls is not run by it.

Source: the import system of the Python language reference (section 5: an import executes the module's code) and
IPython's kernel, which runs a notebook's cells in one interpreter whose ``sys.path`` the cells may change.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from faultlib.detect.data.leakage.session import join_scripts, session_members
from faultlib.detect.data.leakage.source import SourceMap, parse_tolerant


def with_imported_modules(path: str, source: str, smap: SourceMap) -> tuple[str, SourceMap]:
    """``(source, smap)`` of the notebook at ``path`` with the project modules its cells import put before them;
    unchanged when they import none (or nothing parses, or a module cannot be read)."""
    from faultlib.errors import InputError

    try:
        code = parse_tolerant(source, SourceMap(str(path)))
    except (SyntaxError, InputError):
        return source, smap
    members = session_members(Path(path), code)
    if len(members) < 2:
        return source, smap
    try:
        text, joined = join_scripts(members, str(path), last=source.rstrip("\n"))
    except InputError:  # a module that cannot be read: the notebook is still analysed, alone
        return source, smap
    _, offset, _ = joined.files[-1]  # type: ignore[index]
    shift = offset - 1
    return text, replace(
        smap, files=joined.files[:-1],  # type: ignore[index]
        cells=[(number, start + shift, count) for number, start, count in smap.cells or ()],
        inlined=[(name, number, start + shift, count) for name, number, start, count in smap.inlined])


__all__ = ["with_imported_modules"]
