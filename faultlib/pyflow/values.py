"""The values :class:`faultlib.pyflow.interp.Interpreter` knows without a subclass's meaning.

Constants, tuples and lists (:class:`Tup`), dicts and item-assigned objects (:class:`Container`), names the
module imports or never binds (:class:`Ref`), the module's functions, classes, instances and bound methods,
an unknown value bound to a name (:class:`Opaque`) and the unknown value itself (:data:`UNKNOWN`). An analysis
adds its own values (the leakage analysis: data, estimators, row sets) and may subclass :class:`Opaque`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Tup:
    items: tuple


@dataclass(frozen=True)
class Ref:
    """A name imported or global that the analysis does not model (``numpy.concatenate``, ``print``)."""

    name: str

    @property
    def last(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def module(self) -> str:
        return self.name.rsplit(".", 1)[0] if "." in self.name else ""


class Opaque:
    """An unknown value bound to a variable (a parameter nobody passes, a call nothing models): ``name`` and the
    ``line`` where it was bound."""

    def __init__(self, name: str, line: int):
        self.name = name
        self.line = line


@dataclass
class Func:
    node: Any
    qualname: str
    owner: Any = None  # the ClassVal of a method
    #: a nested function's view of the enclosing call's variables (``self`` in a helper defined inside a method)
    closure: dict | None = field(default=None, compare=False, repr=False)


@dataclass
class ClassVal:
    """A class the module defines: its methods and the last identifiers of its bases (``TransformerMixin``)."""

    node: Any
    qualname: str
    methods: dict[str, Func] = field(default_factory=dict)
    bases: frozenset[str] = frozenset()


@dataclass
class Instance:
    cls: ClassVal
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Bound:
    """``receiver.name`` waiting to be called."""

    receiver: Any
    name: str


@dataclass
class Container:
    """A dict (or an object used as one) holding values by constant key: ``data['train'], data['test'] = ...``.

    Mutable: assigning an item changes it, as in Python. ``under_unread_key`` holds what an analysis chose to keep of
    the values stored under keys it could not read (``d[loop_var] = v``; None: nothing kept): the interpreter itself
    drops such stores, and a client that keeps them (the leakage analysis's ``keyeddicts``) decides what a read
    under an unread key gives. Iterating the dict reads ``items`` only.
    """

    items: dict[Any, Any] = field(default_factory=dict)
    under_unread_key: Any = None


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


def functions_of(value: Any) -> list[Func]:
    """The functions a module-level value holds: itself, or a class's methods."""
    if isinstance(value, Func):
        return [value]
    if isinstance(value, ClassVal):
        return list(value.methods.values())
    return []


__all__ = ["UNKNOWN", "Bound", "ClassVal", "Const", "Container", "Func", "Instance", "Opaque", "Ref", "Tup",
           "functions_of"]
