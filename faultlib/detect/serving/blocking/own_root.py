"""The analysed repository imported under its own name: ``from cookbook.auth.jwt import check`` in a checkout of
``cookbook`` analysed from its root, whose modules are named ``auth.jwt`` (the root folder's name is no package
prefix when it is not an identifier, as a checkout named ``chainlit-cookbook``, or when the code is run from the
folder above). Used by :meth:`~faultlib.detect.serving.blocking.index.Index.lookup` when no analysed module
matches a dotted name.

The rule: a dotted name whose first part is no analysed module, no standard-library module and no package the
vocabulary describes resolves to what the rest of the name denotes inside the analysed root, when the rest names
a module and a member of it (or a module in a package): at least two more parts, and something of the analysed
files, never a third-party name (``requests.utils.quote`` stays ``requests``'s, even where the root has a
``utils.py``, because ``requests`` is in the vocabulary).
"""

from __future__ import annotations

import ast
import sys
from pathlib import PurePath

from faultlib.detect.serving.blocking.model import Func, Klass, Module

MIN_REST = 2
"""Parts the rest of the name must have: a module and a member (``auth.jwt``), so a bare top-level name of the
root (``utils``) never stands for an unknown package."""


def under_own_name(index, parts: list[str], depth: int) -> Func | Klass | Module | None:
    """What ``parts`` (a dotted name no analysed module starts) denotes when its first part is the repository's own
    name, or None (see the module docstring)."""
    if len(parts) < 1 + MIN_REST or parts[0] in sys.stdlib_module_names or parts[0] in known_packages(index):
        return None
    if not any(".".join(parts[1:cut]) in index.modules for cut in range(2, len(parts) + 1)):
        return None
    found = index.lookup(".".join(parts[1:]), depth + 1)
    return found if isinstance(found, (Func, Klass, Module)) else None


def known_packages(index) -> frozenset[str]:
    """Top-level packages the vocabulary names (of its calls, return types and families), computed once per index."""
    known = getattr(index, "_known_packages", None)
    if known is None:
        vocab = index.vocab
        known = frozenset(name.partition(".")[0] for name in [*vocab.calls, *vocab.returns, *vocab.returns.values(),
                                                              *(t for f in vocab.families for t in f.types)])
        index._known_packages = known
    return known


def imports_own_package(index, call, func: Func) -> bool:
    """``importlib.import_module("pkg")`` (a constant absolute name, or a loop variable over a literal list of them)
    called from a module inside the package ``pkg`` (``pkg`` or ``pkg.sub`` of the package folders, each with an
    ``__init__.py`` among the analysed files, that enclose the caller): importing a module imports its parent packages first
    (https://docs.python.org/3/reference/import.html#submodules), so the package is in ``sys.modules`` before the
    caller's code runs and the call only looks it up."""
    from faultlib.detect.serving.blocking.loop_items import loop_values

    if not call.args or call.keywords:
        return False
    arg = call.args[0]  # a constant, or a loop variable over a literal list of them (for path in ["pkg"]: ...)
    values = loop_values(index, func, arg.id) if isinstance(arg, ast.Name) else [arg]
    return bool(values) and all(isinstance(v, ast.Constant) and _encloses(index, v.value, func) for v in values)


def _encloses(index, name, func: Func) -> bool:
    """The absolute module name ``name`` is one of the packages that enclose ``func``'s module."""
    if not isinstance(name, str) or not name or name.startswith("."):
        return False
    paths = index.__dict__.get("_module_paths")
    if paths is None:
        paths = index.__dict__["_module_paths"] = frozenset(str(m.path) for m in index.distinct_modules())
    chain: list[str] = []
    folder = PurePath(str(func.module.path)).parent
    while str(folder / "__init__.py") in paths and folder.name:
        chain.insert(0, folder.name)
        folder = folder.parent
    parts = name.split(".")
    return chain[:len(parts)] == parts
