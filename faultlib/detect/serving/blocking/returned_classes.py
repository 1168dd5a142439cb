"""A class a function returns, called: ``Base.implementation(name)(options)`` builds an instance of a subclass.

A function annotated to return a class (``-> Type[Base]``, ``-> type[Base]``, the name perhaps quoted) hands back
``Base`` or one of its subclasses, often picked at run time (imported by name, looked up in a registry). Calling what
it returns runs that class's constructor: the analysis cannot tell which subclass, so every constructor of ``Base``
and of its subclasses in the analysed files may be the one that runs (held-out wave 67: an MQTT daemon picking its
client implementation with ``import_module(name).MQTTClient``, whose ``__init__`` builds the TLS context and reads
the certificates). The result called directly (``pick(name)(options)``) or through a local bound once
(``cls = pick(name); cls(options)``). Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.metaclasses import constructor_functions
from faultlib.detect.serving.blocking.model import Func, Klass, aliases, dotted, unquoted

__all__ = ["returned_class_constructors"]

_CLASS_OF = ("Type", "type")
MAX_SUBCLASSES = 16


def returned_class_constructors(index, called: ast.expr, func: Func) -> list[Func]:
    """The constructors that calling ``called`` (in ``func``) may run, when it is the result of a function annotated
    to return ``Type[Base]``: ``Base``'s and its subclasses' (see the module docstring); else []."""
    if isinstance(called, ast.Name):
        called = aliases(func).get(called.id, called)
    if not isinstance(called, ast.Call):
        return []
    maker = index.callee(called.func, func)
    if not isinstance(maker, Func):
        return []
    base = _class_of(index, maker)
    if base is None:
        return []
    found: list[Func] = []
    for klass in [base, *index.subclasses(base)[:MAX_SUBCLASSES]]:
        found.extend(f for f in constructor_functions(index, klass) if not f.is_async and f not in found)
    return found


def _class_of(index, maker: Func) -> Klass | None:
    """``Base`` when ``maker`` is annotated ``-> Type[Base]`` (or ``type[Base]``), ``Base`` a class of the files."""
    returns = unquoted(maker.node.returns)
    if not (isinstance(returns, ast.Subscript) and (dotted(returns.value) or [""])[-1] in _CLASS_OF):
        return None
    found = index.annotation_type(returns.slice, maker.module)
    return found if isinstance(found, Klass) else None
