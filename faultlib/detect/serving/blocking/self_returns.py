"""A method annotated ``-> Self`` (PEP 673) returns an instance of the class it is called on.

``typing.Self`` (and the ``typing_extensions`` backport) "is bound to the class of the receiver": a classmethod
factory ``def load(cls, name) -> Self: return cls(model=...)`` called as ``Encoder.load(name)`` gives an ``Encoder``,
and called on a subclass a subclass (https://peps.python.org/pep-0673/, "Use in Classmethod Signatures";
https://docs.python.org/3/library/typing.html#typing.Self). Without this the annotation resolved to the name
``typing_extensions.Self``, and the methods of the object built there (a held-out wave 65 gRPC servicer's
embedding model, whose forward ran on the loop) were never followed. Used by
:mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Type

SELF_TYPES = frozenset({"typing.Self", "typing_extensions.Self"})
"""The resolved names of PEP 673's ``Self``."""

__all__ = ["SELF_TYPES", "self_return"]


def self_return(index, target: Func, callee: ast.expr, caller: Func | None, depth: int) -> Klass | None:
    """The class a call of ``target`` (a method of the analysed files annotated ``-> Self``, also ``Self | None``)
    through ``callee`` returns: the receiver's class (``Sub.load()`` or ``sub.copy()``: ``Sub``), else the class
    defining ``target``; None when ``target`` is not annotated so."""
    if target.cls is None or index.annotation_type(target.node.returns, target.module, depth + 1) not in SELF_TYPES:
        return None
    if isinstance(callee, ast.Attribute) and caller is not None:
        receiver: Type | None = index.callee(callee.value, caller, depth + 1)  # a class named: Sub.load(...)
        if not isinstance(receiver, Klass):
            receiver = index.type_of(callee.value, caller, depth + 1)  # an instance: sub.copy()
        if isinstance(receiver, Klass) and (receiver is target.cls or receiver in index.subclasses(target.cls)):
            return receiver
    return target.cls
