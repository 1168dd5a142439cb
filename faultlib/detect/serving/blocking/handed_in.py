"""A function handed to a method and stored on ``self`` there runs where that attribute is called.

``super()._init_cache(self._predict, enabled, size)`` in a model class, and in the base's ``_init_cache(self, fn,
...)``: ``self._cached = lru_cache(maxsize=size)(fn)`` (or ``self._cached = fn``); then ``self._cached(text)`` runs
``_predict``. The stored value is one of the storing method's parameters, bare or wrapped by a caching decorator
applied as a call (``functools.lru_cache``/``cache``/``cachetools.cached``: the wrapper calls the function on a miss);
what it stands for is what each call of that method in the analysed files passes there (a ``super()`` call included),
when that is a function of the files. Used by
:meth:`~faultlib.detect.serving.blocking.infer.Inference.attribute_callees`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["lineage", "stored_arguments"]

WRAPPERS = frozenset({"lru_cache", "cache", "cached", "cached_method"})
MAX_CALLS = 40
MAX_BASES = 8


def lineage(index, klass: Klass) -> list[Klass]:
    """``klass`` and its bases of the analysed files (nearest first, at most :data:`MAX_BASES`): a method a base
    defines stores on the same ``self``."""
    out, todo = [], [klass]
    while todo and len(out) < MAX_BASES:
        k = todo.pop(0)
        if all(k is not o for o in out):
            out.append(k)
            todo.extend(b for b in index.bases(k) if isinstance(b, Klass))
    return out


def stored_arguments(index, method: Func, value: ast.expr) -> list[Func]:
    """The functions of the analysed files ``value`` (stored on ``self`` by ``method``) stands for when it is one of
    ``method``'s parameters, bare or in a caching wrapper: the argument each call of ``method`` passes there."""
    inner = _unwrapped(value)
    args = method.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if not isinstance(inner, ast.Name) or inner.id not in positional:
        return []
    bound = method.cls is not None and not any(dotted(d) == ["staticmethod"] for d in method.node.decorator_list)
    position = positional.index(inner.id) - (1 if bound else 0)
    found: list[Func] = []
    for call, caller in index.infer.sites().get(method.node.name, [])[:MAX_CALLS]:
        if not (index.callee(call.func, caller) is method or (
                isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call)
                and dotted(call.func.value.func) == ["super"] and method.cls is not None
                and caller.cls is not None and any(method.cls is k for k in lineage(index, caller.cls)[1:]))):
            continue
        given = next((k.value for k in call.keywords if k.arg == inner.id), None)
        given = given if given is not None else (call.args[position] if 0 <= position < len(call.args) else None)
        target = index.callee(given, caller) if isinstance(given, (ast.Name, ast.Attribute)) else None
        if isinstance(target, Func) and all(target is not f for f in found):
            found.append(target)
    return found


def _unwrapped(value: ast.expr) -> ast.expr:
    """``fn`` of ``lru_cache(maxsize=n)(fn)``, ``functools.cache(fn)``; ``value`` itself otherwise."""
    if isinstance(value, ast.Call) and len(value.args) == 1:
        factory = value.func.func if isinstance(value.func, ast.Call) else value.func
        if (dotted(factory) or [""])[-1] in WRAPPERS:
            return value.args[0]
    return value
