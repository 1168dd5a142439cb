"""A local bound to values of different types in different branches, called by a method only one of them has.

``model = OpenRouterClient()`` in one branch, ``model = genai.GenerativeModel(name)`` in the default one, and later,
in the branch that mirrors it, ``model.generate_content(prompt)``: the local's type is the first assignment's, whose
class has no ``generate_content``, so the call went unresolved. Python looks a method up on the object the name is
bound to at run time (https://docs.python.org/3/reference/datamodel.html#instance-objects); when no class of the
analysed files among the values defines the method (nor a class of the files they derive from), the call can only run
on one of the library values, and it blocks when the vocabulary says that library's method does. A method that a
class of the files defines (``model.convert_inputs_to_api_kwargs(...)`` of the project's own clients) is not judged
here. Used by :func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of

__all__ = ["branch_types"]

MAX_VALUES = 8
"""Assignments of the local read at most."""


def branch_types(index, call: ast.Call, func: Func) -> list[str]:
    """The library types among the values the local ``x`` of ``x.method(...)`` is assigned in ``func``, when it is
    assigned at least twice and no class of the analysed files among those values has ``method``; else []."""
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)):
        return []
    name, method = call.func.value.id, call.func.attr
    scope: Func | None = func
    values: list[ast.expr] = []
    while scope is not None and not values:  # a closure's free variable: the enclosing function's assignments
        values = _assigned(scope).get(name, [])
        scope = scope.parent if not values else scope
    if len(values) < 2 or scope is None:
        return []
    found: list[str] = []
    for value in values[:MAX_VALUES]:
        typed = index.type_of(value, scope)
        if isinstance(typed, Klass) and _has_method(index, typed, method):
            return []
        if isinstance(typed, str) and typed not in found:
            found.append(typed)
    return found


_ASSIGNED: WeakKeyDictionary[Func, dict[str, list[ast.expr]]] = WeakKeyDictionary()


def _assigned(scope: Func) -> dict[str, list[ast.expr]]:
    """``name -> values`` of the function's plain ``name = value`` statements, in order (one walk per function)."""
    found = _ASSIGNED.get(scope)
    if found is None:
        found = {}
        for node in nodes_of(scope, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                found.setdefault(node.targets[0].id, []).append(node.value)
        _ASSIGNED[scope] = found
    return found


def _has_method(index, klass: Klass, method: str, depth: int = 0) -> bool:
    """``klass`` or a class of the analysed files it derives from defines ``method``."""
    if method in klass.methods:
        return True
    return depth < 4 and any(isinstance(b, Klass) and _has_method(index, b, method, depth + 1)
                             for b in index.bases(klass))
