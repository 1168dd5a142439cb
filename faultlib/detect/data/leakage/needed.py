"""Variables a script reads but never sets, for the discovery of a *session* (:mod:`.session`).

A model script often starts where a preparation script stopped, in the same interpreter (``%run prep.py`` then
``%run model.py``, Spyder's "run file", a notebook cut into scripts): ``model.py`` splits and scores ``X`` and ``y``
that only ``prep.py`` assigns. Read alone, ``model.py`` stops with ``NameError`` at its first line and its analysis
sees unknown values: a scaler fitted in ``prep.py`` on every row before ``model.py``'s split is invisible, and the
report said "leakage: ok". The sibling that assigns those variables at top level runs first, as a sibling that
defines the functions a script calls does (the same choice: the one that covers most names; a tie is left out).

A name counts as *needed* when the script loads it and binds it nowhere (no assignment, parameter, loop target,
import, ``def`` or ``class``), it is not a builtin nor a module dunder (``__file__``), and the script has no star
import of a module outside its folder (``from pylab import *`` may define anything: then nothing is needed).
A sibling *provides* a name it assigns outside any function or class (``X = ...``, ``X, y = ...``, ``for X in``,
``with ... as X``, ``X += ...``); importing a name is not providing it.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

_BUILTINS = frozenset(dir(builtins)) | frozenset({"get_ipython", "display", "In", "Out"})


def _star_import_elsewhere(tree: ast.Module, folder: Path) -> bool:
    return any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
               and not (n.module and n.level <= 1 and (folder / f"{n.module.split('.')[-1]}.py").is_file())
               for n in ast.walk(tree))


def needed_variables(tree: ast.Module, bound: set[str], folder: Path) -> set[str]:
    """Names ``tree`` loads as values but never binds (see the module docstring); ``bound``: every name it binds."""
    if _star_import_elsewhere(tree, folder):
        return set()
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
            and id(n) not in called and n.id not in bound and n.id not in _BUILTINS
            and not (n.id.startswith("__") and n.id.endswith("__"))}


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def provided_variables(tree: ast.Module) -> set[str]:
    """Names ``tree`` assigns outside any function or class."""
    out: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                out |= _targets(t)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            out |= _targets(node.target)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    out |= _targets(item.optional_vars)
        todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt) or isinstance(
            c, ast.excepthandler))
    return out


__all__ = ["needed_variables", "provided_variables"]
