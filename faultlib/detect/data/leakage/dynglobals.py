"""Names a module defines through ``globals()``, for the static leakage analysis.

Notebooks often load every table of a folder in one loop and name each after its file::

    for f in Path('../input').glob('application_*.ftr'):
        globals()[f.stem] = pd.read_feather(f)
    train, test = application_train, application_test

``application_train`` is then a value the module made, not a reference to something imported: the interpreter
(:mod:`faultlib.pyflow.interp`) would see a name bound nowhere and answer a module reference (``Ref``), whose
rows nobody follows. :class:`DynamicGlobals` answers instead what any unknown value bound to a variable is
(:class:`~faultlib.detect.data.leakage.values.MaybeData` named after it, a table since a reader or some other
value made it), the same value at each use, so ``train`` and ``test`` are two tables named by their variables, as
when the script reads them one by one (``application_test``'s rows are then held out by its name). It does so
only for a name that is bound nowhere in the module (no assignment, import, definition or parameter), is no
builtin, and only in a module that assigns into ``globals()[...]`` (Python reference, "Built-in Functions":
``globals()`` returns the module's namespace dictionary, so a key set there is a module variable).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

from faultlib.detect.data.leakage.session import bound_names
from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import Ref
from faultlib.pyflow.walk import walk_once

__all__ = ["DynamicGlobals", "dynamic_global_names"]


def _writes_globals(tree: ast.Module) -> bool:
    return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Call) and isinstance(t.value.func, ast.Name)
               and t.value.func.id == "globals" for n in walk_once(tree) if isinstance(n, ast.Assign) for t in n.targets)


def dynamic_global_names(tree: ast.Module) -> frozenset[str]:
    """The names read in ``tree`` that only a ``globals()[...] = ...`` can have bound (empty when there is none)."""
    if not _writes_globals(tree) or any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                                        for n in walk_once(tree)):  # a star import may bind any of them
        return frozenset()
    read = {n.id for n in walk_once(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return frozenset(read - bound_names(tree) - set(dir(builtins)))


class DynamicGlobals:
    """A name bound only through ``globals()[...]`` is an unknown value of the module (see the module docstring)."""

    tree: ast.Module
    globals: dict[str, Any]

    def _lookup(self, name: str, frame: Any) -> Any:
        out = super()._lookup(name, frame)  # type: ignore[misc]
        if isinstance(out, Ref) and out.name == name:
            if not hasattr(self, "_dynamic_names"):
                self._dynamic_names = dynamic_global_names(self.tree)
            if name in self._dynamic_names:
                table = MaybeData(name, 0)
                table.from_file = True
                self.globals[name] = table  # the same value at every later use
                return table
        return out
