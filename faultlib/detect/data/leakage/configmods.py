"""The path constants of the project modules a script imports, for the files the leakage analysis follows.

Project templates keep their file names in one module (``src/config.py``, ``conf/settings.py``) that every stage
imports (``from src import config``, ``import project.settings as settings``) and reads as ``config.TRAIN_CSV``.
A script analysed alone (not in a session that joins that module, :mod:`.session`) still names those files: the
module's top-level path constants are read from its source (:func:`~.repofiles.member_constants`), as the
repository index does for the scripts that hand files to each other (:mod:`.repofiles`). A module is found by the
stem it is imported under, under the script's project root (:func:`~.repofiles.repo_root`); a stem that names two
files there is left out (which one runs is not known).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from faultlib.pyflow.walk import walk_once


@lru_cache(maxsize=16)
def _module_files(root: str) -> dict[str, tuple[str, ...]]:
    from faultlib.detect.data.leakage.reposcripts import project_scripts

    out: dict[str, tuple[str, ...]] = {}
    for path in project_scripts(Path(root)):
        out[path.stem] = (*out.get(path.stem, ()), str(path))
    return out


def _imported_stems(tree: ast.AST) -> set[str]:
    stems: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            stems.add(node.module.rsplit(".", 1)[-1])  # from settings import TRAIN_CSV
            stems.update(a.name for a in node.names)  # from src import config
        elif isinstance(node, ast.Import):
            stems.update(a.name.rsplit(".", 1)[-1] for a in node.names)  # import project.settings as settings
    return stems


def imported_module_constants(script: str, tree: ast.AST) -> dict:
    """``{module stem: {name: FilePath}}`` of the project modules ``tree`` (the code of ``script``) imports."""
    from faultlib.detect.data.leakage.repofiles import member_constants, repo_root

    if not script or not Path(script).is_file():  # code given as text: no project around it
        return {}
    files = _module_files(str(repo_root(script)))
    found = [files[stem][0] for stem in sorted(_imported_stems(tree)) if len(files.get(stem, ())) == 1]
    return member_constants([f for f in found if Path(f).resolve() != Path(script).resolve()])


__all__ = ["imported_module_constants"]
