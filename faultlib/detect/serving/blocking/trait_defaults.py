"""traitlets' dynamic defaults: reading ``obj.name`` runs the ``@default("name")`` method of its class when the trait
has no value yet.

A ``HasTraits`` class computes a trait's initial value lazily: "dynamic default values ... are computed the first
time the trait is accessed" by the method decorated ``@default('name')``
(https://traitlets.readthedocs.io/en/stable/using_traitlets.html#dynamic-default-values; the older spelling is a
method named ``_name_default``). So the read ``self.api`` in a coroutine runs that method on the loop, once per
instance: a Kubernetes config load, a client built from files (held-out wave 49, BinderHub's launch quota).
Followed like a ``@property`` getter (:func:`~faultlib.detect.serving.blocking.dispatch.property_reads`); a class
without such a method reads a plain value.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["trait_default"]

MAX_CLASSES = 16
"""How many classes (the owner and its analysed bases) one lookup walks at most."""


def trait_default(index, klass: Klass, attr: str) -> Func | None:
    """The sync method of ``klass`` or one of its analysed bases that computes the trait ``attr``'s default, or
    None."""
    todo, seen = [klass], []
    while todo and len(seen) < MAX_CLASSES:
        current = todo.pop(0)
        seen.append(current)
        for method in current.methods.values():
            if not method.is_async and (_decorated_default(method.node, attr) or method.node.name == f"_{attr}_default"):
                return method
        todo += [b for b in index.bases(current) if isinstance(b, Klass) and b not in seen and b not in todo]
    return None


def _decorated_default(node: ast.FunctionDef | ast.AsyncFunctionDef, attr: str) -> bool:
    return any(isinstance(d, ast.Call) and (dotted(d.func) or [""])[-1] == "default"
               and any(isinstance(a, ast.Constant) and a.value == attr for a in d.args) for d in node.decorator_list)
