"""Registries filled away from their display: what ``REGISTRY[name](...)`` may run when the dict starts empty.

A module-global dict that other code fills by subscript assignment -- ``TOOLS[name] = handler`` at the top level or
in a function, or inside a decorator (``def register(fn): TOOLS[fn.__name__] = fn; return fn``, or a decorator
factory ``tool(name)`` whose inner decorator stores its parameter) -- holds every function or class so stored, and
every function the decorator decorates, anywhere in the analysed files. A call that picks from the dict
(``TOOLS[name](...)``, ``TOOLS.get(name)(...)``, ``fn = TOOLS[name]; fn(...)``) may run any of them: each is a
candidate, as for a literal dict of functions (:func:`~faultlib.detect.serving.blocking.choices.picked`).
The dict is the global of the module that defines it, reached by its name there or through an import.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Module, dotted

__all__ = ["registered"]

MAX_MEMBERS = 64
"""At most this many candidates per registry (a plugin system of hundreds of entries is left unresolved)."""


def registered(index, container: ast.expr, func: Func) -> list:
    """The functions and classes stored into the module-global dict ``container`` (see the module docstring), in
    the order found; empty when ``container`` is not such a global or nothing is stored into it."""
    if not isinstance(container, ast.Name) or _assigned_in(func, container.id):
        return []
    where = _defining_module(index, func.module, container.id)
    if where is None:
        return []
    module, name = where
    table = index.__dict__.setdefault("_faultlib_registries", {})
    key = (id(module), name)
    if key not in table:
        table[key] = _members(index, module, name)
    return table[key]


def _defining_module(index, module: Module, name: str) -> tuple[Module, str] | None:
    if name in module.globals:
        return module, name
    imported = module.imports.get(name)
    if not imported or "." not in imported:
        return None
    owner, _, attr = imported.rpartition(".")
    target = index.modules.get(owner)
    return (target, attr) if target is not None and attr in target.globals else None


def _members(index, module: Module, name: str) -> list:
    found: list = []
    decorators: list[Func] = []
    for func in module.all_functions:
        if _assigned_in(func, name):
            continue
        for node in func.nodes:
            for value in _stored_values(node, name):
                if isinstance(value, ast.Name) and value.id in _parameters(func):
                    decorators.append(func)  # def register(fn): NAME[key] = fn
                else:
                    _add(found, index.callee(value, func) if dotted(value) else None)
    for stmt in module.tree.body:
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                            ast.ClassDef)) else ():
            for value in _stored_values(node, name):
                parts = dotted(value)
                _add(found, index.resolve_parts(parts, module, None) if parts else None)
    if decorators:
        for other in index.distinct_modules():
            for func in other.all_functions:
                if any(_decorates(index, d, func, decorators) for d in func.node.decorator_list):
                    _add(found, func)
    return found[:MAX_MEMBERS]


def _stored_values(node: ast.AST, name: str) -> list[ast.expr]:
    if not isinstance(node, ast.Assign):
        return []
    return [node.value for t in node.targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
            and t.value.id == name]


def _decorates(index, decorator: ast.expr, func: Func, registrars: list[Func]) -> bool:
    """``@register`` (a registrar itself) or ``@tool(...)`` (a factory whose nested function is a registrar)."""
    scope = func.parent
    target = index.callee(decorator.func if isinstance(decorator, ast.Call) else decorator, scope) \
        if scope is not None else _top_callee(index, decorator, func.module)
    if not isinstance(target, Func):
        return False
    if isinstance(decorator, ast.Call):
        return any(r.parent is target for r in registrars)
    return any(r is target for r in registrars)


def _top_callee(index, decorator: ast.expr, module: Module):
    parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    return index.resolve_parts(parts, module, None) if parts else None


def _add(found: list, target) -> None:
    if isinstance(target, (Func, Klass)) and all(target is not f for f in found):
        found.append(target)


def _parameters(func: Func) -> set[str]:
    args = func.node.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _assigned_in(func: Func, name: str) -> bool:
    """``name`` is a local of ``func`` (a parameter, or assigned without a ``global`` declaration)."""
    if any(isinstance(n, ast.Global) and name in n.names for n in func.nodes):
        return False
    return name in _parameters(func) or any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name
                                            for n in func.nodes)
