"""A name bound once to what a function of the analysed files returns, when that function's return annotation is a
``Union``: ``cache = get_cache(...)`` with ``def get_cache(...) -> LocalCache | RedisCache``.

The annotation says which classes the value may be (https://docs.python.org/3/library/typing.html#typing.Union), so
a method called on the name may run either class's method, as for a parameter annotated the same way
(:func:`~faultlib.detect.serving.blocking.choices.union_members`). The name may be a local assigned once, a module
global, or a global imported from another analysed module (``from app.cache import cache``). Used by
:mod:`~faultlib.detect.serving.blocking.choices`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import _assigned_in, _single_assignment
from faultlib.detect.serving.blocking.model import Func, Module

__all__ = ["returned_annotation"]


def returned_annotation(index, expr: ast.Name, func: Func) -> tuple[ast.expr, Module] | None:
    """The return annotation (and the module it is written in) of the function of the analysed files whose call
    ``expr`` is bound to, or None (remembered per function and name)."""
    table = func.__dict__.setdefault("_faultlib_returned", {})
    if expr.id not in table:
        value, scope = _binding(index, expr.id, func)
        target = index.callee(value.func, scope) if isinstance(value, ast.Call) and scope is not None else None
        table[expr.id] = (target.node.returns, target.module) if isinstance(target, Func) and (
            target.node.returns is not None) else None
    return table[expr.id]


def _binding(index, name: str, func: Func) -> tuple[ast.expr | None, Func | None]:
    if _assigned_in(func, name):
        return _single_assignment(func, name), func
    module = func.module
    if name in module.globals:
        return module.globals[name], index.infer.module_func(module)
    owner, _, last = module.imports.get(name, "").rpartition(".")
    imported = index.modules.get(owner) if owner else None
    if imported is not None and last in imported.globals:
        return imported.globals[last], index.infer.module_func(imported)
    return None, None
