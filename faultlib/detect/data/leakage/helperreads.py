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
"""

from __future__ import annotations

import ast
from pathlib import Path

from faultlib.detect.data.leakage.pathexprs import PathEnv, file_access, path_of
from faultlib.pyflow.walk import walk_once


def _reading_params(func: ast.FunctionDef | ast.AsyncFunctionDef, env: PathEnv) -> dict[str, int]:
    """Parameters of ``func`` whose value a file read in it takes as its path -> their positions."""
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
            if access is not None and access[0] == "read" and isinstance(access[1], ast.Name):
                read.add(access[1].id)
    return {p: i for i, p in enumerate(params) if p in read and rebound.get(p, True)}


def _helpers(tree: ast.Module, env: PathEnv) -> dict[str, dict[str, int]]:
    """The module's functions that read at a path parameter: name -> {parameter: position}."""
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = _reading_params(node, env)
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
                if alias.name in found:
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
    helpers: dict[str, dict[str, dict[str, int]]] = {}
    for (path, tree), env in zip(trees, envs):
        found = _helpers(tree, env)
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
        for node in walk_once(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            params = names.get(func.id) if isinstance(func, ast.Name) else modules.get(func.value.id, {}).get(
                func.attr) if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
            for arg in _passed(node, params or {}):
                file = path_of(arg, env, node.lineno)
                if file is not None:
                    out.setdefault(path, []).append((file, node.lineno))
    return out


__all__ = ["imported_reads"]
