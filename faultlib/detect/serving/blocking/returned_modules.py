"""A module a loader helper imports and returns: ``sdk = _require_sdk()`` then ``sdk.Client(...)`` calls the
library's own ``Client``.

Optional dependencies are often imported lazily by a helper that returns the module (``import oss2 as m; return
m``), sometimes kept in a module global the helper fills once (``global _mod; _mod = m; return _mod``). The value
returned is that module, so attributes read from it name the library's functions and classes (held-out wave 49:
DojoZero's OSS uploader built its ``oss2.Bucket`` through such a helper and uploaded from an async endpoint).
Only imports written in the helper itself count; a global assigned anything else stays unknown. Used by
:meth:`~faultlib.detect.serving.blocking.typeof.TypeOf.return_type`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["returned_module"]


def returned_module(func: Func) -> str | None:
    """The dotted name of the module every ``return`` of ``func`` hands back (see the module docstring), or None."""
    imported = {}
    for node in nodes_of(func, ast.Import):
        for alias in node.names:
            imported[alias.asname or alias.name.partition(".")[0]] = alias.name if alias.asname else \
                alias.name.partition(".")[0]
    if not imported:
        return None
    globals_ = {n for node in nodes_of(func, ast.Global) for n in node.names}
    copied = {t.id: n.value.id for n in nodes_of(func, ast.Assign) if isinstance(n.value, ast.Name)
              and n.value.id in imported for t in n.targets if isinstance(t, ast.Name) and t.id in globals_}
    found = set()
    for node in nodes_of(func, ast.Return):
        if node.value is not None:
            name = node.value.id if isinstance(node.value, ast.Name) else None
            name = copied.get(name, name)
            if name not in imported:
                return None
            found.add(imported[name])
    return found.pop() if len(found) == 1 else None
