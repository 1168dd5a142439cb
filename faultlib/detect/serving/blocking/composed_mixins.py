"""Mixins composed into one class: what ``self.x`` is in a mixin, when a sibling base provides it.

A service often splits a client wrapper into mixins that each declare what they expect of the others and one class
that inherits them all (``class JiraFetcher(ProjectsMixin, SearchMixin, EpicsMixin, ...)``). A mixin's method calls
``self.search_issues(...)``, which the mixin declares only through a ``Protocol`` or an abstract stub
(``@abstractmethod ... def search_issues(...): ...``), or reads ``self.jira``, annotated ``jira: Any``; at run time
``self`` is the composed class, and Python's method resolution order finds the sibling mixin that implements the
method and the base that assigns the attribute ("the method resolution order ... searches the bases left to right",
https://docs.python.org/3/tutorial/classes.html#multiple-inheritance; https://docs.python.org/3/howto/mro.html).
So the call runs that implementation, and the attribute has that base's type: an HTTP call there blocks the caller's
loop like one written in the mixin itself (held-out wave 61: four misses in a composed Atlassian fetcher). The
implementations looked for are those of the classes that derive from the mixin (or from the class the caller is
known to hold), each resolved through its own bases to the first concrete (not abstract) definition. Used by
:mod:`~faultlib.detect.serving.blocking.reach` (the callees of an abstract method's call);
:meth:`~faultlib.detect.serving.blocking.index.Index.attribute_type` does the same for attributes.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.model import Func, Klass
from faultlib.detect.serving.blocking.shapes import is_abstract

__all__ = ["sibling_implementations"]

MAX_DEPTH = 8
"""Bases walked above a composed class."""


def sibling_implementations(index, target: Func, known: Klass | None) -> list[Func]:
    """The concrete sync methods that a call of the abstract ``target`` (``self.m()``) runs for an instance of a class
    composing ``target``'s class (or of ``known``, the class the caller holds, and those deriving from it)."""
    name = target.node.name
    classes = ([known] if known is not None else []) + index.subclasses(known or target.cls)
    found: list[Func] = []
    for klass in classes:
        method = _concrete(index, klass, name, 0)
        if method is not None and method is not target and not method.is_async and method not in found:
            found.append(method)
    return found


def _concrete(index, klass: Klass, name: str, depth: int) -> Func | None:
    """The first definition of ``name`` in ``klass`` and its bases (depth first, left to right) that is not abstract."""
    pending: list[tuple[Klass, int]] = [(klass, depth)]
    while pending:
        current, level = pending.pop()
        method = current.methods.get(name)
        if method is not None and not is_abstract(method):
            return method
        if level < MAX_DEPTH:  # the bases, leftmost popped first
            pending += [(b, level + 1) for b in reversed(index.bases(current)) if isinstance(b, Klass)]
    return None
