"""An instance made from a table of classes: ``ROUTERS[name](**options)``.

A registry maps names to classes of the analysed files (``{"bert": BertRouter, "mf": MfRouter}``) and the code
builds whichever one a setting names. Which class runs is a run-time choice, but when the classes share a base class
of the analysed files, the instance is one of that base (``isinstance`` holds for every subclass: Python's data
model, https://docs.python.org/3/reference/datamodel.html#customizing-instance-and-subclass-checks): its methods are
the base's, and a call the base leaves to its subclasses (an abstract ``score``) is followed into each of them, as for
any value typed by a base. Used by :mod:`~faultlib.detect.serving.blocking.typeof` for a call of a subscript.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import literal_scope_is_func
from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["table_base"]

MAX_DEPTH = 6
"""Levels of base classes walked per class."""


def table_base(index, container: ast.expr, func: Func) -> Klass | None:
    """The nearest base class of the analysed files that every class value of the literal container bound to
    ``container`` derives from (or is), when there are two or more values and each is such a class; else None."""
    literal = index.infer.literal(container, func)
    scope = func if literal_scope_is_func(container, func) else index.infer.module_func(func.module)
    if literal is None:
        literal, scope = index.infer.imported_display(container, func)  # from .routers import ROUTERS
    if literal is None or not isinstance(literal, ast.Dict):
        return None
    classes = []
    for value in literal.values:
        target = index.callee(value, scope) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if not isinstance(target, Klass):
            return None
        classes.append(target)
    if len(classes) < 2:
        return None
    lines = [_lineage(index, k) for k in classes]
    shared = [k for k in lines[0] if all(any(k is o for o in other) for other in lines[1:])]
    return shared[0] if shared else None


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


