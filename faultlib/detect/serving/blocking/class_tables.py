"""An instance made from a table of classes: ``ROUTERS[name](**options)``.

A registry maps names to classes of the analysed files (``{"bert": BertRouter, "mf": MfRouter}``) and the code
builds whichever one a setting names. Which class runs is a run-time choice, but when the classes share a base class
of the analysed files, the instance is one of that base (``isinstance`` holds for every subclass: Python's data
model, https://docs.python.org/3/reference/datamodel.html#customizing-instance-and-subclass-checks): its methods are
the base's, and a call the base leaves to its subclasses (an abstract ``score``) is followed into each of them, as for
any value typed by a base. Used by :mod:`~faultlib.detect.serving.blocking.typeof` for a call of a subscript.

The class itself may be what the table hands out: ``SERIALIZERS[content_type].deserialize(body)``, or a lookup
function that returns ``SERIALIZERS[content_type]`` (``get_deserializer(content_type).deserialize(body)``), calls a
static or class method of whichever class the key picks -- the classes need share no base (duck typing: each
defines the method). :func:`picked_methods` gives the method of every class of the table that defines it (a
``None`` value, for a key the code rejects, is skipped); held-out wave 70: a model server decoding an uploaded image
through the serializer class its content type picks. Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import literal_scope_is_func
from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of

__all__ = ["picked_methods", "table_base"]

MAX_DEPTH = 6
"""Levels of base classes walked per class."""


def table_base(index, container: ast.expr, func: Func) -> Klass | None:
    """The nearest base class of the analysed files that every class value of the literal container bound to
    ``container`` derives from (or is), when there are two or more values and each is such a class; else None."""
    classes = _table_classes(index, container, func, allow_none=False)
    if classes is None or len(classes) < 2:
        return None
    lines = [_lineage(index, k) for k in classes]
    shared = [k for k in lines[0] if all(any(k is o for o in other) for other in lines[1:])]
    return shared[0] if shared else None


def picked_methods(index, call: ast.Call, func: Func) -> list[Func]:
    """The sync method ``m`` of each class that ``X.m(...)`` may call, where ``X`` picks a class from a literal
    table of classes (see the module docstring); empty for anything else."""
    if not isinstance(call.func, ast.Attribute):
        return []
    classes = _picked(index, call.func.value, func, 0)
    methods = [index.method(k, call.func.attr) for k in classes]
    return [m for m in methods if m is not None and not m.is_async]


def _picked(index, expr: ast.expr, func: Func, depth: int) -> list[Klass]:
    """The classes ``expr`` may be: ``TABLE[key]``, ``TABLE.get(key)``, or a call of a function of the analysed
    files whose every returned value is one of those."""
    table = expr.value if isinstance(expr, ast.Subscript) else (
        expr.func.value if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "get" and expr.args else None)
    if table is not None:
        classes = _table_classes(index, table, func, allow_none=True) or []
        return [k for i, k in enumerate(classes) if all(k is not o for o in classes[:i])]
    if not isinstance(expr, ast.Call):
        return []
    target = index.callee(expr.func, func)
    if not isinstance(target, Func) or target.is_async or depth >= MAX_DEPTH:
        return []
    returns = [n.value for n in nodes_of(target, ast.Return) if n.value is not None]
    found: list[Klass] = []
    for value in returns:
        picked = _picked(index, value, target, depth + 1)
        if not picked:
            return []  # another kind of value returned: not a table lookup
        found += [k for k in picked if all(k is not f for f in found)]
    return found


def _table_classes(index, container: ast.expr, func: Func, allow_none: bool) -> list[Klass] | None:
    """The classes of the analysed files that are the values of the literal dict bound to ``container`` (``None``
    values skipped when ``allow_none``), or None when it is no such table."""
    literal = index.infer.literal(container, func)
    scope = func if literal_scope_is_func(container, func) else index.infer.module_func(func.module)
    if literal is None:
        literal, scope = index.infer.imported_display(container, func)  # from .routers import ROUTERS
    if literal is None or not isinstance(literal, ast.Dict):
        return None
    classes: list[Klass] = []
    for value in literal.values:
        if allow_none and isinstance(value, ast.Constant) and value.value is None:
            continue
        target = index.callee(value, scope) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if not isinstance(target, Klass):
            return None
        classes.append(target)
    return classes or None


def _lineage(index, klass: Klass) -> list[Klass]:
    """``klass`` and its bases of the analysed files, nearest first."""
    out, todo = [], [(klass, 0)]
    while todo:
        k, depth = todo.pop(0)
        if any(k is o for o in out):
            continue
        out.append(k)
        if depth < MAX_DEPTH:
            todo.extend((b, depth + 1) for b in index.bases(k) if isinstance(b, Klass))
    return out


