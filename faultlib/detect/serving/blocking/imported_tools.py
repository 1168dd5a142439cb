"""A registry of functions looked up by name in the package's own modules, called from it (held-out wave 57).

A tool-calling bot keeps its tools as plain functions in the modules of one package and finds them at run time: the
package's ``__init__`` imports each of its modules by name (``importlib.import_module(f"{__name__}.{mod}")``, the
import system's documented way to import a module named at run time,
https://docs.python.org/3/library/importlib.html#importlib.import_module), takes each tool with ``getattr(module,
name)`` and stores it in a dict; a dispatcher of the same module then picks one (``fn = registry.get(name)``) and
calls it (``fn(**arguments)``). No name in the code says which function runs, so the call was left unresolved and
the tools' I/O, run inline from the async caller, went unseen (infinigpt: 9 misses).

:func:`imported_tools` answers such a call with every public top-level function of the package's public modules
(the ones that loop can import; a module or function named with a leading ``_`` is private). Only when all of this
holds: the called name is a local assigned once, from a ``.get(...)`` or a subscript; the calling module is a
package's ``__init__`` that itself imports modules of ``__name__``/``__package__`` by a computed name and, in the
same function, takes attributes of them with ``getattr`` and stores values into a dict by key. Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast
import os

from faultlib.detect.serving.blocking.infer import _single_assignment
from faultlib.detect.serving.blocking.model import Func, Module, dotted

__all__ = ["imported_tools"]

PACKAGE_NAMES = frozenset({"__name__", "__package__"})


def imported_tools(index, expr: ast.expr, func: Func) -> list[Func]:
    """The sync functions ``expr(...)`` may run when ``expr`` was picked from a registry of the package's own
    modules' functions (see the module docstring); empty otherwise."""
    if not isinstance(expr, ast.Name) or not _fills_from_own_modules(func.module):
        return []
    value = _single_assignment(func, expr.id)
    picked = isinstance(value, ast.Subscript) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get")
    if not picked:
        return []
    package = os.path.dirname(func.module.path)
    return [f for m in index.distinct_modules()
            if os.path.dirname(m.path) == package and not os.path.basename(m.path).startswith("_")
            for name, f in m.functions.items() if not name.startswith("_") and not f.is_async]


def _fills_from_own_modules(module: Module) -> bool:
    """Whether ``module`` is a package ``__init__`` with a function that imports the package's modules by a
    computed name, takes attributes of them with ``getattr`` and stores into a dict by key (memoised)."""
    memo = module.__dict__.get("_faultlib_imported_tools")
    if memo is None:
        memo = os.path.basename(module.path) == "__init__.py" and any(
            _fills(f.node) for f in module.all_functions)
        module.__dict__["_faultlib_imported_tools"] = memo
    return memo


def _fills(node: ast.AST) -> bool:
    own = set(PACKAGE_NAMES) | {t.id for n in ast.walk(node) if isinstance(n, ast.Assign)  # name = __name__
                                for t in n.targets if isinstance(t, ast.Name)
                                and isinstance(n.value, ast.Name) and n.value.id in PACKAGE_NAMES}
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    imports = any(dotted(c.func) == ["importlib", "import_module"] and c.args and _named_from(c.args[0], own)
                  for c in calls)
    looks_up = any(isinstance(c.func, ast.Name) and c.func.id == "getattr" for c in calls)
    stores = any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets)
                 for n in ast.walk(node))
    return imports and looks_up and stores


def _named_from(arg: ast.expr, own: set[str]) -> bool:
    """A module name computed from the package's own name: ``f"{__name__}.{m}"``, ``__package__ + "." + m``, or
    the same through a local assigned ``__name__`` (``own``); a literal name alone is not computed."""
    return not isinstance(arg, ast.Constant) and any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(arg))
