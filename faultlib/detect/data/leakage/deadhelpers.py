"""Functions of a project's helper module that no code of the project calls, for the static leakage analysis.

A competition solution keeps its feature code in a helper module (``package/feature.py``) and imports a long list
of names from it in each model script, calling two of them; the other ten are experiments the author left in the
module (and often in the import line). The interpreter runs every function a module never calls on opaque
arguments (:meth:`faultlib.pyflow.interp.Interpreter.interpret`): right for a module read alone, whose callers
are out of sight, and right for a callback handed to a library call (an optuna objective) that the analysis does
not follow. For a helper module whose importers *are* in sight it reports fits in code that never runs: a PCA on
train and test stacked, in a function no script calls, reaches no model (issue 17, wave 99: ten such alarms in a
Porto Seguro solution's ``feature.py``).

:func:`dead_functions` gives the module-level functions of a module that (1) the project's other scripts and
notebooks import from (:mod:`.session`'s resolution of imports: the module is a helper whose users are in sight), and
(2) nothing calls: the name occurs in no other script or notebook of the project (a name read, an attribute, a
string: ``getattr(feature, "pca")`` or a registry of names counts as a call; an import line does not, nor does a
commented-out call), not in the module's own top-level code, and not in a function of the module that is itself
called. A decorated function (a framework may call it) and every function of a project where some code looks
names up at run time (``getattr(m, name)`` with a computed name, ``globals()``, ``eval``/``exec``) are kept.
:class:`UncalledHelpers` answers the interpreter's hook ``_left_uncalled`` with it: such a function is not run on
opaque arguments.

Source: the call semantics of the Python language reference (6.3.4 Calls; 5 "The import system": an import binds
a name, it runs none of the module's functions); the house rule "a never-called helper is no leak" (issue 17
labels of waves 92 and 99).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

from faultlib.detect.data.leakage.targets import read_words
from faultlib.pyflow.walk import tree_fact, walk_once

#: calls that look a name up at run time: a project using one may call any function by a computed name
_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "__import__", "import_module"})


def _references(tree: ast.AST) -> set[str]:
    """The names ``tree`` reads, the attributes it takes and the identifier-like strings it holds; an
    ``import f as g`` read as ``g`` is ``f``."""
    out = read_words(tree)
    renamed = {a.asname: a.name.rsplit(".", 1)[-1] for node in walk_once(tree)
               if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names if a.asname}
    return out | {name for alias, name in renamed.items() if alias in out}


def _looks_up_names(tree: ast.AST) -> bool:
    """The code calls a function by a computed name: ``globals()``, ``eval``, ``import_module``, or ``getattr``
    with a name that is no string literal."""
    for node in walk_once(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in _DYNAMIC:
            return True
        if name == "getattr" and len(node.args) >= 2 and not (
                isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            return True
    return False


def _script_facts(tree: ast.AST) -> tuple[bool, frozenset[str]]:
    """Whether another script looks names up at run time, and the names it references: one walk per script and
    tree (:func:`~faultlib.pyflow.walk.tree_fact`), however many helper modules of its project ask."""
    return _looks_up_names(tree), frozenset(_references(tree))


def _top_functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module-level functions without a decorator (the last ``def`` of a name: the one the module keeps)."""
    return {n.name: n for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.decorator_list}


def dead_functions(path: str | Path) -> frozenset[tuple[str, int]]:
    """``(name, line of its def)`` of each module-level function of the module at ``path`` that no code of its
    project calls, when other scripts or notebooks of the project import the module (see the module docstring);
    empty for a module nobody imports, a notebook, a file that cannot be read."""
    try:
        target = Path(path).resolve()
        stamp = target.stat().st_mtime_ns
    except (OSError, ValueError):
        return frozenset()
    return _dead(str(target), stamp)


@lru_cache(maxsize=256)
def _dead(target: str, _stamp: int) -> frozenset[tuple[str, int]]:
    from faultlib.detect.data.leakage.nbfiles import is_notebook, project_notebooks
    from faultlib.detect.data.leakage.repofiles import repo_root
    from faultlib.detect.data.leakage.reposcripts import project_scripts, script_tree
    from faultlib.detect.data.leakage.session import _imported_siblings

    path = Path(target)
    tree = None if is_notebook(path) else script_tree(path)
    funcs = _top_functions(tree) if tree is not None else {}
    if not funcs or _looks_up_names(tree):
        return frozenset()
    root = repo_root(path)
    used: set[str] = set()
    imported = False
    for other in [*project_scripts(root), *project_notebooks(root)]:
        if other.resolve() == path or (code := script_tree(other)) is None:
            continue
        looks_up, references = tree_fact(code, _script_facts)
        if looks_up:
            return frozenset()
        imported = imported or any(p.resolve() == path for p in _imported_siblings(code, other.parent))
        used |= references
    if not imported:
        return frozenset()
    return frozenset((node.name, node.lineno) for node in _unreached(tree, funcs, used))


def _unreached(tree: ast.Module, defs: dict[str, ast.AST], used: set[str]) -> list:
    """The definitions of ``defs`` whose name neither ``used`` (the names read elsewhere), the module's other
    top-level code, nor a definition reached so far reads (a function a called function calls is called)."""
    kept = set(defs.values())
    alive = used | set().union(*(_references(n) for n in tree.body if n not in kept))
    grown = True
    while grown:
        grown = False
        for name, node in defs.items():
            if name in alive and (inner := _references(node) - alive):
                alive |= inner
                grown = True
    return [node for name, node in defs.items() if name not in alive]


class UncalledHelpers:
    """A module-level function of an imported helper module that no code of the project calls is not run on
    opaque arguments (see the module docstring; needs ``smap``)."""

    def _left_uncalled(self, func) -> bool:
        if func.owner is not None or func.closure:
            return False
        at = self.smap.where(func.node.lineno)
        if "index" in at:  # a notebook's cell
            return False
        return (func.node.name, at["line"]) in dead_functions(at["file"])


__all__ = ["UncalledHelpers", "dead_functions"]
