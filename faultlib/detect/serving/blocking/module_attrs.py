"""A module kept on an instance: ``import torch`` in ``__init__``, ``self._torch = torch``, and later
``torch = self._torch; with torch.no_grad(): ...`` or ``self._torch.load(path)``.

Services that import a heavy library lazily (inside ``__init__``, so that importing the service stays fast) often
keep the module on ``self`` and read it back in the methods that use it. A call through that attribute, or through a
local bound once to it, is a call of the module's function: ``self._torch.load`` is ``torch.load``,
``torch.no_grad`` (after ``torch = self._torch``) is ``torch.no_grad``. Only a name bound by an ``import``
statement counts (``import torch``, ``import numpy as np``; a ``from`` import may bind a class or a function), and
every assignment of the attribute in the class must store the same module.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, _is_local, nodes_of

_MEMO = "_faultlib_module_attrs"


def module_held(expr: ast.expr, func: Func | None, depth: int = 0) -> str | None:
    """The dotted name of the module ``expr`` holds in ``func`` (``self._torch``, a local ``torch = self._torch``,
    ``self._torch.cuda``), or None."""
    if func is None or func.cls is None or depth > 4 or not stored_modules(func.cls):
        return None  # a class that keeps no module on self (most): nothing to look up
    if isinstance(expr, ast.Name) and expr.id not in ("self", "cls") and _is_local(func, expr.id):
        bound = _single_assignment(func, expr.id)
        return module_held(bound, func, depth + 1) if isinstance(bound, ast.Attribute) else None
    if not isinstance(expr, ast.Attribute):
        return None
    if isinstance(expr.value, ast.Name) and expr.value.id == "self" and func.cls is not None:
        return stored_modules(func.cls).get(expr.attr)
    held = module_held(expr.value, func, depth + 1)
    return None if held is None else f"{held}.{expr.attr}"


def stored_modules(klass: Klass) -> dict[str, str]:
    """``{attribute: module}`` for the attributes the class's methods set only to an imported module (memoised)."""
    found = klass.__dict__.get(_MEMO)
    if found is not None:
        return found
    seen: dict[str, set[str | None]] = {}
    for method in klass.methods.values():
        for node in nodes_of(method, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self"):
                    module = _imported_module(method, node.value) if isinstance(node.value, ast.Name) else None
                    seen.setdefault(target.attr, set()).add(module)
    found = {attr: next(iter(mods)) for attr, mods in seen.items() if len(mods) == 1 and None not in mods}
    klass.__dict__[_MEMO] = found
    return found


def _imported_module(func: Func, name: ast.Name) -> str | None:
    """The module an ``import`` statement of ``func`` (or of its module's top level) binds to ``name``."""
    scopes = [func.nodes, [n for stmt in func.module.tree.body if isinstance(stmt, ast.Import) for n in [stmt]]]
    for nodes in scopes:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname == name.id:
                        return alias.name
                    if alias.asname is None and alias.name.partition(".")[0] == name.id:
                        return name.id
    return None


def _single_assignment(func: Func, name: str) -> ast.expr | None:
    """The value of the one assignment ``name = value`` in ``func``, or None (assigned more than once, or not so);
    the function's table is built once."""
    table = func.__dict__.get("_faultlib_single_values")
    if table is None:
        stores: dict[str, int] = {}
        values: dict[str, list[ast.expr]] = {}
        for node in func.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                stores[node.id] = stores.get(node.id, 0) + 1
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        values.setdefault(target.id, []).append(node.value)
        table = func.__dict__["_faultlib_single_values"] = {
            n: v[0] for n, v in values.items() if len(v) == 1 and stores.get(n) == 1}
    return table.get(name)
