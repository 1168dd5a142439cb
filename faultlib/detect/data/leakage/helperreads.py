"""Files read by a helper of another module, at the path the importing script passes, for the repository index.

A project keeps its loading code in a module and names the file in the script that runs::

    # preprocessing.py
    def load_snapshot(path):
        if not os.path.isabs(path):
            path = os.path.join(ROOT, path.lstrip("/"))
        return pd.read_csv(path)

    # train.py
    from preprocessing import load_snapshot
    df = load_snapshot("/data/snapshot.csv")

The read's path is the helper's parameter, known only at the call, and the call is in another file: the index
(:mod:`.repofiles`) saw a read of an unknown path in ``preprocessing.py`` and no read at all in ``train.py``, so the
script that wrote ``snapshot.csv`` (a missing-share column filter over every row: issue 17 wave 86, a sepsis
project's ``eda.py``) was never joined with the script that splits it. :func:`imported_reads` adds, to the importing
script, a read of the path each call passes.

Read from the syntax alone: a module-level function of a module of the repository whose file read (pandas
``read_*``, ``np.load``, ...: :func:`~.pathexprs.file_access`) takes its path from one of the function's parameters,
rebound in the function only to values built from itself (``path = os.path.join(ROOT, path)``: the file name
stays the one passed); a call of that function, imported by name (``from preprocessing import load_snapshot``, also
under another name) or through its module (``import preprocessing``; ``preprocessing.load_snapshot(...)``), passes
the path at that parameter's position or keyword.

Writes go the same way (:func:`imported_writes`): a module of I/O helpers saves what it is given
(``def save_table(frame, path): frame.to_csv(path, index=False)``) and each stage script names its file
(``save_table(cleaned, os.path.join(base, "data", "cleaned.csv"))``), so the stage's table reached the next stage's
read only once the index knew the stage writes it (issue 17 wave 89: a learning-to-rank assignment's cleaning and
feature scripts saved through ``dataframe_to_csv(df, path)`` of a module they star-import, and its model script read
the engineered file). Star imports (``from csv_utils import *``) bring every helper of the module, and a path the
calling script only passes on (``def stage(read_path, write_path): save_table(df, write_path)``) is each path its
own callers pass (:mod:`.callerpaths`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from faultlib.detect.data.leakage.callerpaths import CallerPaths
from faultlib.detect.data.leakage.pathexprs import PathEnv, file_access
from faultlib.pyflow.walk import walk_once


def _path_params(func: ast.FunctionDef | ast.AsyncFunctionDef, env: PathEnv, mode: str) -> dict[str, int]:
    """Parameters of ``func`` whose value a file access of ``mode`` (``read``/``write``) in it takes as its path ->
    their positions."""
    params = [a.arg for a in [*func.args.posonlyargs, *func.args.args]]
    rebound: dict[str, bool] = {}
    read: set[str] = set()
    for n in ast.walk(func):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and t.id in params:
                    selfish = any(isinstance(c, ast.Name) and c.id == t.id for c in ast.walk(n.value))
                    rebound[t.id] = rebound.get(t.id, True) and selfish
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            rebound[n.target.id] = False
        elif isinstance(n, ast.Call):
            access = file_access(n, env)
            if access is not None and access[0] == mode and isinstance(access[1], ast.Name):
                read.add(access[1].id)
    return {p: i for i, p in enumerate(params) if p in read and rebound.get(p, True)}


def _helpers(tree: ast.Module, env: PathEnv, mode: str) -> dict[str, dict[str, int]]:
    """The module's functions that read (``mode``: or write) at a path parameter: name -> {parameter: position}."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _path_params(node, env, mode)
            if found:
                out[node.name] = found
    return out


def _imported(tree: ast.Module, helpers: dict[str, dict[str, dict[str, int]]]) -> tuple[
        dict[str, dict[str, int]], dict[str, dict[str, dict[str, int]]]]:
    """(helper functions imported by name -> their parameters, module aliases -> that module's helpers)."""
    names: dict[str, dict[str, int]] = {}
    modules: dict[str, dict[str, dict[str, int]]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found = helpers.get(node.module.rsplit(".", 1)[-1], {})
            for alias in node.names:
                if alias.name == "*":  # from io_helpers import *: every helper of the module
                    names.update(found)
                elif alias.name in found:
                    names[alias.asname or alias.name] = found[alias.name]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found = helpers.get(alias.name.rsplit(".", 1)[-1])
                if found and (alias.asname or "." not in alias.name):
                    modules[alias.asname or alias.name] = found
    return names, modules


def _passed(call: ast.Call, params: dict[str, int]) -> list[ast.expr]:
    out = []
    for name, position in params.items():
        if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            out.append(call.args[position])
        out += [k.value for k in call.keywords if k.arg == name]
    return out


def imported_reads(trees: list[tuple[str, ast.Module]], envs: list[PathEnv]) -> dict[str, list[tuple[object, int]]]:
    """``{script: [(FilePath, line), ...]}``: the files each script reads through a reading helper of another module
    of the list (see the module docstring)."""
    return _imported_accesses(trees, envs, "read")


def imported_writes(trees: list[tuple[str, ast.Module]], envs: list[PathEnv]) -> dict[str, list[tuple[object, int]]]:
    """``{script: [(FilePath, line), ...]}``: the files each script writes through a writing helper of another module
    of the list (see the module docstring)."""
    return _imported_accesses(trees, envs, "write")


def _imported_accesses(trees: list[tuple[str, ast.Module]], envs: list[PathEnv], mode: str) -> dict[
        str, list[tuple[object, int]]]:
    helpers: dict[str, dict[str, dict[str, int]]] = {}
    for (path, tree), env in zip(trees, envs):
        found = _helpers(tree, env, mode)
        if found:
            helpers.setdefault(Path(path).stem, {}).update(found)
    if not helpers:
        return {}
    out: dict[str, list[tuple[object, int]]] = {}
    for (path, tree), env in zip(trees, envs):
        own = Path(path).stem
        names, modules = _imported(tree, {k: v for k, v in helpers.items() if k != own})
        if not names and not modules:
            continue
        callers = None
        for node in walk_once(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            params = names.get(func.id) if isinstance(func, ast.Name) else modules.get(func.value.id, {}).get(
                func.attr) if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
            for arg in _passed(node, params or {}):
                callers = callers or CallerPaths(tree, env)  # a path the script's own callers pass (callerpaths.py)
                out.setdefault(path, []).extend((file, node.lineno) for file in callers.paths(arg, node.lineno))
    return out


__all__ = ["imported_reads", "imported_writes"]
