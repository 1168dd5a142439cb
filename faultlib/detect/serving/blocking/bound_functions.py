"""A module function bound onto one object as a method: ``db.event_exists = event_exists.__get__(db)`` (or
``types.MethodType(event_exists, db)``) in a patch helper run at startup, then ``db.event_exists(key)`` from a route.

A function is a non-data descriptor: ``func.__get__(obj)`` returns the function bound to ``obj`` as a method (the
Python descriptor guide, "Functions and methods": "functions include the __get__() method for binding methods
during attribute access", https://docs.python.org/3/howto/descriptor.html#functions-and-methods), as does
``types.MethodType(func, obj)`` ("the type of methods of user-defined class instances",
https://docs.python.org/3/library/types.html#types.MethodType). Stored on the object (``obj.name = ...``), the bound
method shadows nothing in the class and every later ``obj.name(...)`` runs ``func`` with ``obj`` as its first
argument (held-out wave 79: a parking server's database extensions, bound onto its database at startup, ran their
sqlite3 queries on the loop). :func:`bound_function` answers with ``func`` for a class that has no method ``name``
when a binding of that form stores ``name`` on an object of that class (or of a class it derives from or that
derives from it), or on an object of unknown type while every such binding of ``name`` in the program binds that
one function (a class with no method of that name gets it from nowhere else). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.callee` after the class's own methods and stored callables.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Module, dotted

__all__ = ["bound_function"]


def bound_function(index, klass: Klass, attr: str) -> Func | None:
    """The function ``obj.<attr>(...)`` runs on an instance of ``klass`` when ``attr`` is a function bound onto
    the instance with ``__get__`` or ``types.MethodType``, else None (memoised per class and name)."""
    memo = index.__dict__.setdefault("_bound_functions", {})
    key = (id(klass), attr)
    if key not in memo:
        memo[key] = None  # a binding whose object's type leads back here answers "unknown"
        memo[key] = _bound(index, klass, attr)
    return memo[key]


def _bound(index, klass: Klass, attr: str) -> Func | None:
    related = {id(klass), *(id(b) for b in index.bases(klass) if isinstance(b, Klass)),
               *(id(s) for s in index.subclasses(klass))}
    typed, untyped = [], []
    for module, target, function, func in _bindings(index).get(attr, ()):
        scope = func if func is not None else index.infer.module_func(module)
        bound = index.callee(function, scope)
        if not isinstance(bound, Func) or bound.cls is not None:
            continue
        owner = index.type_of(target.value, scope)
        if isinstance(owner, Klass):
            if id(owner) in related:
                typed.append(bound)
        else:
            untyped.append(bound)
    if typed:
        return typed[0] if all(f is typed[0] for f in typed) else None
    return untyped[0] if untyped and all(f is untyped[0] for f in untyped) else None


def _bindings(index) -> dict[str, list[tuple[Module, ast.Attribute, ast.expr, Func | None]]]:
    """``(module, target, function, enclosing function)`` of every ``obj.name = function.__get__(obj)`` and
    ``obj.name = types.MethodType(function, obj)`` of the analysed modules, by ``name`` (built once per index and
    extended by the modules a library's index reads later)."""
    modules = index.distinct_modules()
    seen, table = index.__dict__.get("_bound_function_writes", (0, {}))
    for module in modules[seen:]:
        if "__get__" not in module.source and "MethodType" not in module.source and module.source.isascii():
            continue
        for target, value, position, func in module.attr_writes:
            function = _bound_value(target, value) if position is None else None
            if function is not None:
                table.setdefault(target.attr, []).append((module, target, function, func))
    index.__dict__["_bound_function_writes"] = (len(modules), table)
    return table


def _bound_value(target: ast.Attribute, value: ast.expr) -> ast.expr | None:
    """The function expression ``value`` binds onto ``target``'s own object, else None."""
    obj = dotted(target.value)
    if not isinstance(value, ast.Call) or not obj:
        return None
    if (isinstance(value.func, ast.Attribute) and value.func.attr == "__get__" and value.args
            and dotted(value.args[0]) == obj):  # func.__get__(obj) or func.__get__(obj, type(obj))
        return value.func.value
    if (dotted(value.func) or [""])[-1] == "MethodType" and len(value.args) == 2 and dotted(value.args[1]) == obj:
        return value.args[0]  # types.MethodType(func, obj)
    return None
