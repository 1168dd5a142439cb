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
Only a script that fits, splits or scores one of those names needs them (a missing constant says nothing of run
order), and a sibling is joined for them only when it provides **every** one (read alone after it, the script
would run without ``NameError``; a sibling that sets ``epochs`` but not ``X_train`` is another experiment).
A sibling *provides* a name it assigns outside any function or class (``X = ...``, ``X, y = ...``, ``for X in``,
``with ... as X``, ``X += ...``); importing a name is not providing it.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Callable

from faultlib.pyflow.walk import walk_once

_BUILTINS = frozenset(dir(builtins)) | frozenset({"get_ipython", "display", "In", "Out"})


def _star_import_elsewhere(tree: ast.Module, folder: Path) -> bool:
    return any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
               and not (n.module and n.level <= 1 and (folder / f"{n.module.split('.')[-1]}.py").is_file())
               for n in walk_once(tree))


#: calls whose arguments are data a model is fitted, split or scored on (scikit-learn, Keras, LightGBM names)
_DATA_CALLS = frozenset({"fit", "fit_transform", "fit_resample", "train_test_split", "cross_val_score",
                         "cross_validate", "cross_val_predict", "split", "score", "predict", "train", "Dataset",
                         "DMatrix"})


def _data_arguments(tree: ast.Module) -> set[str]:
    """Names passed (at any depth) as an argument of a fit, a split or a score."""
    out: set[str] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(
                n.func, "id", None)) in _DATA_CALLS:
            for arg in [*n.args, *(k.value for k in n.keywords)]:
                out |= {m.id for m in ast.walk(arg) if isinstance(m, ast.Name)}
    return out


_NEEDED: dict[tuple[int, str], tuple[ast.Module, frozenset[str]]] = {}


def needed_variables(tree: ast.Module, bound_of: Callable[[ast.Module], set[str]], folder: Path) -> set[str]:
    """Names ``tree`` loads as values but never binds (see the module docstring); ``bound_of(tree)``: every name it
    binds (asked only when not remembered).
    Empty unless one of them is data the script fits, splits or scores (``train_test_split(X, y)``): a missing
    constant (``img_size``) says nothing about which script ran first."""
    key = (id(tree), str(folder))
    hit = _NEEDED.get(key)
    if hit is not None and hit[0] is tree:
        return set(hit[1])
    if len(_NEEDED) > 1024:
        _NEEDED.clear()
    out: set[str] = set()
    if not _star_import_elsewhere(tree, folder):
        nodes = list(walk_once(tree))
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
        bound = bound_of(tree)
        out = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
               and id(n) not in called and n.id not in bound and n.id not in _BUILTINS
               and not (n.id.startswith("__") and n.id.endswith("__"))}
        out = out if out and out & _data_arguments(tree) else set()
    _NEEDED[key] = (tree, frozenset(out))  # (the discovery reads the same siblings for every script of a folder)
    return out


def _targets(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


_PROVIDED: dict[int, tuple[ast.Module, frozenset[str]]] = {}  # id(tree) -> (tree, names): siblings are read often


def provided_variables(tree: ast.Module) -> frozenset[str]:
    """Names ``tree`` assigns outside any function or class (remembered per parsed tree)."""
    hit = _PROVIDED.get(id(tree))
    if hit is not None and hit[0] is tree:
        return hit[1]
    if len(_PROVIDED) > 1024:
        _PROVIDED.clear()
    out = frozenset(_assigned_outside_functions(tree))
    _PROVIDED[id(tree)] = (tree, out)
    return out


def _assigned_outside_functions(tree: ast.Module) -> set[str]:
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


def unassigned_data(tree: ast.Module, bound_of: Callable[[ast.Module], set[str]], folder: Path) -> set[str]:
    """Of :func:`needed_variables`, the names the script itself fits, splits or scores (``X``, ``y``): what it
    reads as data without ever assigning it, so whatever was done to those rows before is out of sight."""
    return needed_variables(tree, bound_of, folder) & _data_arguments(tree)


__all__ = ["needed_variables", "provided_variables", "unassigned_data"]
