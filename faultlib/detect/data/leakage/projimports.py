"""Which files of the project an ``import`` statement means, for a session of scripts (:mod:`.session`).

A project keeps its helpers in its own modules and packages, and its scripts reach them in many spellings. Each
is resolved to the file Python would load, looking only inside the project (never into installed packages):

* ``from helpers import f`` / ``import helpers [as h]``: ``helpers.py`` beside the script;
* ``from pkg.helpers import f`` / ``import pkg.helpers as h``: ``pkg/helpers.py`` under the script's folder or one
  of its :data:`MAX_UP` nearest ancestors (a script in ``src/`` or ``scripts/`` run from the project root);
* ``from pkg import helpers`` (a module of a package, then ``helpers.f(...)``): ``pkg/helpers.py``;
* ``from pkg import f`` where ``pkg/__init__.py`` re-exports ``f`` (``from .helpers import f``): ``pkg/helpers.py``,
  the module that defines it (and ``pkg/__init__.py`` itself when it defines ``f``);
* a package used as a module, ``from src import models`` then ``models.evaluate_model(...)`` where
  ``src/models/__init__.py`` re-exports ``evaluate_model`` (``from .models import evaluate_model``): the
  attribute is the object the ``__init__`` bound, so the module that defines it is loaded too
  (:func:`package_members`; the ``__init__`` alone defines nothing the script calls);
* relative imports, ``from .helpers import f``, ``from ..utils import f``, ``from . import helpers``: counted from
  the script's own folder;
* folders a script puts on the import path, ``sys.path.append('..')``, ``sys.path.insert(0, '../lib/src')``,
  ``sys.path += ['../../']``, ``sys.path.extend([...])``
  (string literals, or ``os.path.join`` of literals and of ``os.getcwd()``, the folder it runs in; relative to the script's folder, where it is usually run): the
  same spellings under them; so are folders computed from the script's own file, ``os.path.dirname(
  os.path.abspath(__file__))``, ``Path(__file__).resolve().parents[1] / 'src'`` (:mod:`.syspaths`).

Source: the import system of the Python language reference (section 5, "The import system": packages, submodules,
``__init__`` and relative imports), read with the common layouts of data-science repositories (``src/``,
``utils/``, ``sys.path`` edits in scripts).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path

from faultlib.detect.data.leakage.syspaths import computed_folder, top_bindings
from faultlib.pyflow.walk import walk_once

#: ancestors of the script's folder searched for a dotted path's first package (the folder itself, then these)
MAX_UP = 3
#: ``__init__`` re-exports followed at most (``pkg/__init__`` -> ``pkg/sub/__init__`` -> ``pkg/sub/mod.py``)
MAX_REEXPORT = 3

Parse = Callable[[Path], "ast.Module | None"]


def path_roots(tree: ast.Module, folder: Path) -> list[Path]:
    """Folders the script adds to ``sys.path`` with literal paths (resolved against ``folder``), existing only,
    and kept inside the reach of the other imports (the folder and its :data:`MAX_UP` nearest ancestors), with no
    symlinked folder on the way: ``sys.path.append('../../../../etc')`` or a link out of the project joins nothing.
    """
    out: list[Path] = []
    try:
        base = folder.resolve()
    except OSError:
        return out
    reach = [base, *base.parents][:MAX_UP + 1][-1]
    names: dict[str, ast.expr] | None = None
    for entry in _added_entries(tree):
        text = _literal_path(entry)
        if text is None:  # os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src') (syspaths.py)
            names = top_bindings(tree) if names is None else names
            text = computed_folder(entry, names)
        if text is None:
            continue
        cand = Path(os.path.normpath(base / text))  # an absolute text stays itself; ``..`` taken by the letter
        try:
            if cand.resolve() != cand or not cand.is_relative_to(reach):
                continue
        except (OSError, ValueError):
            continue
        if cand.is_dir() and cand not in out:
            out.append(cand)
    return out


def _added_entries(tree: ast.Module) -> list[ast.expr]:
    """The entries a script adds to ``sys.path``, a plain list: ``sys.path.append(p)``, ``sys.path.insert(0, p)``,
    and each item of ``sys.path.extend([p, q])`` and ``sys.path += [p, q]``."""
    out: list[ast.expr] = []
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args and \
                ast.unparse(n.func.value) == "sys.path":
            if n.func.attr in ("append", "insert"):
                out.append(n.args[-1])
            elif n.func.attr == "extend" and isinstance(n.args[0], (ast.List, ast.Tuple)):
                out.extend(n.args[0].elts)
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and ast.unparse(n.target) == "sys.path" and \
                isinstance(n.value, (ast.List, ast.Tuple)):
            out.extend(n.value.elts)
    return out


#: calls that give the working directory: the script's (a notebook's) folder, where it is run
_CWD = frozenset({"os.getcwd", "getcwd", "os.getcwdu", "Path.cwd", "pathlib.Path.cwd"})


def _literal_path(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value
    if isinstance(node, ast.Call) and not node.args and ast.unparse(node.func) in _CWD:
        return "."  # os.path.join(os.getcwd(), '..', 'src'): relative to the folder it runs in
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.path.join", "join") and node.args:
        parts = [_literal_path(a) for a in node.args]
        return "/".join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    return None


def _module_file(root: Path, parts: list[str]) -> Path | None:
    """``root/a/b.py`` or ``root/a/b/__init__.py`` for ``parts == ['a', 'b']``."""
    if not parts:
        return None
    mod = root.joinpath(*parts[:-1], f"{parts[-1]}.py")
    if mod.is_file():
        return mod
    init = root.joinpath(*parts, "__init__.py")
    return init if init.is_file() else None


def _package_dir(root: Path, parts: list[str]) -> Path | None:
    pkg = root.joinpath(*parts) if parts else root
    return pkg if pkg.is_dir() else None


def _roots(node: ast.ImportFrom | ast.Import, folder: Path, extra: list[Path]) -> list[Path]:
    if isinstance(node, ast.ImportFrom) and node.level:
        up = list(folder.parents)
        return [folder if node.level == 1 else up[node.level - 2]] if node.level - 2 < len(up) else []
    multi = isinstance(node, ast.Import) or "." in (node.module or "")
    # a one-part name is a sibling (or on an added path): ``from utils import f`` two folders up may be anything
    return [folder, *extra] + (list(folder.parents)[:MAX_UP] if multi or extra else [])


def resolve_from(node: ast.ImportFrom, folder: Path, extra: list[Path], parse: Parse) -> list[Path]:
    """The project files a ``from ... import names`` statement loads names from (see the module docstring);
    ``[]`` when the module is not the project's."""
    parts = node.module.split(".") if node.module else []
    for root in _roots(node, folder, extra):
        out: list[Path] = []
        mod = _module_file(root, parts)
        pkg = _package_dir(root, parts) if mod is None or mod.name == "__init__.py" else None
        for alias in node.names:
            sub = _module_file(pkg, [alias.name]) if pkg is not None and alias.name != "*" else None
            if sub is not None:  # from pkg import helpers: a module of the package
                out.append(sub)
            elif mod is not None:
                out.extend(_defining(mod, alias.name, parse, MAX_REEXPORT))
        if out or mod is not None:
            return list(dict.fromkeys(out))
    return []


def resolve_import(alias: ast.alias, folder: Path, extra: list[Path]) -> Path | None:
    """The project file ``import a.b.c [as m]`` loads (``a/b/c.py``), or None."""
    for root in _roots(ast.Import(names=[alias]), folder, extra):
        mod = _module_file(root, alias.name.split("."))
        if mod is not None:
            return mod
    return None


def _defining(mod: Path, name: str, parse: Parse, depth: int) -> list[Path]:
    """The file that defines ``name`` imported from ``mod``: ``mod`` itself, or, for an ``__init__.py`` that
    re-exports it with a relative import, the submodule it comes from."""
    if mod.name != "__init__.py" or name == "*":
        return [mod]
    tree = parse(mod)
    if tree is None:
        return []
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            return [mod]
        if isinstance(n, ast.ImportFrom) and n.level == 1 and depth > 0 and any(
                (a.asname or a.name) == name or a.name == "*" for a in n.names):
            parts = n.module.split(".") if n.module else [name]
            sub = _module_file(mod.parent, parts)
            if sub is not None and (n.module or sub.name != "__init__.py"):
                inner = next((a.name for a in n.names if (a.asname or a.name) == name), name)
                found = _defining(sub, inner, parse, depth - 1) if n.module else [sub]
                if found:
                    return found
    return []


def package_members(init: Path, attrs: set[str], parse: Parse) -> list[Path]:
    """The modules that define the attributes ``attrs`` a script reads off a package (``models.evaluate_model`` after
    ``from src import models``, ``init`` = ``src/models/__init__.py``), in the order of ``attrs`` sorted; the
    ``__init__`` itself when it defines one, nothing for a name it does not bind."""
    out: list[Path] = []
    if init.name != "__init__.py":
        return out
    for attr in sorted(attrs):
        out.extend(p for p in _defining(init, attr, parse, MAX_REEXPORT) if p not in out)
    return out


def reexported(init: Path, members: set[Path], parse: Parse) -> set[str]:
    """The names a package's ``__init__.py`` binds (defines, or re-exports with a relative import) whose defining
    module is among ``members`` (resolved paths): ``pkg.name`` means that module's ``name``."""
    tree = parse(init) if init.name == "__init__.py" else None
    if tree is None:
        return set()
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    names |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.level == 1
              for a in n.names if a.name != "*"}
    return {name for name in names if any(p.resolve() in members for p in _defining(init, name, parse, MAX_REEXPORT))}


__all__ = ["MAX_UP", "package_members", "path_roots", "reexported", "resolve_from", "resolve_import"]
