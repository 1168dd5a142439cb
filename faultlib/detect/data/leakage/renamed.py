"""A project module imported under a package name that is not on disk: the project's folders were renamed.

Book and course code is often written inside one package (``ch4/lstm_example.py`` doing
``from ch4.training_datasets import get_training_datasets``) and published with the folders renamed
(``Chapter 04/``): the import names a package that no longer exists, yet the module it means sits beside the
script. Read alone, the script fits a scaler on a whole series and the split that cuts the test windows off is
invisible (it is in that module); joined with it (:mod:`.session`), the leak is found where it is.

:func:`renamed_module` resolves ``from PKG.A.B import f, g`` (``PKG`` found neither under the script's folder
nor its parent) to the longest tail of the dotted path that exists as a file under the script's folder or one
of its two nearest ancestors (``B.py`` beside the script, ``A/B.py`` one level up, ...), and keeps it only when
that file defines at top level every name imported (a function, a class or an assigned name), so an installed
library's module (``from sklearn.preprocessing import StandardScaler``) is never taken for a sibling that
happens to share its last name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

#: ancestors of the script's folder searched for a tail of the dotted path (the folder itself, then two up)
MAX_UP = 2


def _top_level_names(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return out


def renamed_module(node: ast.ImportFrom, folder: Path, parse: Callable[[Path], ast.Module | None]) -> Path | None:
    """The project file a ``from PKG.A.B import names`` means when ``PKG`` was renamed, or None.

    Args:
        node: an absolute ``from`` import with a dotted module (``node.level == 0``, two parts or more).
        folder: the importing script's folder.
        parse: reads a candidate file into a module (None when it cannot be read or parsed).

    Returns:
        The file of the longest tail of the dotted path found under ``folder`` or one of its :data:`MAX_UP`
        nearest ancestors that defines every imported name; None for ``import *``, a one-part module, a
        relative import, or when no tail qualifies.
    """
    parts = (node.module or "").split(".")
    wanted = {a.name for a in node.names}
    if node.level or len(parts) < 2 or "*" in wanted:
        return None
    roots = [folder, *list(folder.parents)[:MAX_UP]]
    for k in range(1, len(parts)):
        tail = parts[k:]
        for root in roots:
            cand = root.joinpath(*tail[:-1], f"{tail[-1]}.py")
            if cand.is_file() and (tree := parse(cand)) is not None and wanted <= _top_level_names(tree):
                return cand
    return None
