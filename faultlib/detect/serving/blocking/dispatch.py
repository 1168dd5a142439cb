"""Which method runs on a receiver the call path knows: the class ``self`` is in a method reached from an entry
or through a typed receiver (:func:`receiver_in`, :func:`narrowed`), the override ``self.m()`` runs there
(:func:`dispatched`), and the property getters (and traitlets' dynamic defaults) a function's attribute reads run
(:func:`property_reads`). Used by
:mod:`~faultlib.detect.serving.blocking.reach`."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.choices import common_base, picked, union_members
from faultlib.detect.serving.blocking.entered_managers import entered_methods
from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of
from faultlib.detect.serving.blocking.shapes import is_property, is_super_call, on_self
from faultlib.detect.serving.blocking.trait_defaults import trait_default

__all__ = ["dispatched", "lacks", "narrowed", "property_reads", "receiver_in"]


def property_reads(index, func: Func) -> list[tuple[ast.Attribute | ast.Subscript | ast.With, Func, Klass]]:
    """``obj.name`` reads in ``func`` (not calls of it) where ``name`` is a sync ``@property``/``cached_property``
    of ``obj``'s class in the analysed files: reading it runs the getter (computed once per function);
    ``obj[key]`` on such a class with its own item methods (:func:`_item_methods`); and ``with obj:`` on one with its
    own ``__enter__``/``__exit__`` (:func:`~faultlib.detect.serving.blocking.entered_managers.entered_methods`)."""
    found = func.__dict__.get("_faultlib_properties")
    if found is None:
        found = func.__dict__["_faultlib_properties"] = []
        called = {id(n.func) for n in nodes_of(func, ast.Call)}
        for node in nodes_of(func, ast.Attribute):
            if not isinstance(node.ctx, ast.Load) or id(node) in called:
                continue
            owner = index.type_of(node.value, func)
            getter = index.method(owner, node.attr) if isinstance(owner, Klass) else None
            if getter is not None and not getter.is_async and is_property(getter):
                found.append((node, getter, owner))
            elif getter is None and isinstance(owner, Klass):  # a traitlets @default("name") initialiser
                initialiser = trait_default(index, owner, node.attr)
                if initialiser is not None:
                    found.append((node, initialiser, owner))
        found += _item_methods(index, func)
        found += entered_methods(index, func)
    return found


_ITEM_METHODS = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}


def _item_methods(index, func: Func) -> list[tuple[ast.Subscript, Func, Klass]]:
    """``obj[key]`` reads, stores and ``del`` in ``func`` where ``obj``'s class of the analysed files defines (or
    inherits from one of them) a sync ``__getitem__``/``__setitem__``/``__delitem__``: the subscript runs it
    (https://docs.python.org/3/reference/datamodel.html#object.__getitem__: "Called to implement evaluation of
    self[key]"); a slice is left out, as by property_sites.item_sites."""
    found = []
    for node in nodes_of(func, ast.Subscript):
        method = _ITEM_METHODS.get(type(node.ctx))
        if method is None or isinstance(node.slice, ast.Slice) or not isinstance(node.value, (ast.Name, ast.Attribute)):
            continue
        owner = index.type_of(node.value, func)
        target = index.method(owner, method) if isinstance(owner, Klass) else None
        if target is not None and not target.is_async:
            found.append((node, target, owner))
    return found


def receiver_in(index, call: ast.Call, func: Func, target: Func, receiver: Klass | None) -> Klass | None:
    """The class ``self`` is known to be inside ``target`` when ``call`` (made in ``func``, whose ``self`` is
    a ``receiver``) runs it: the same object for ``self.m()`` and ``super().m()``, the constructed class for
    a constructor, the receiver's inferred class for ``obj.m()``; None when not known."""
    if target.cls is None:
        return None
    if (on_self(call.func, func) or is_super_call(call.func)) and receiver is not None:
        return narrowed(index, receiver, target)
    constructed = index.callee(call.func, func)
    if isinstance(constructed, Klass):
        return constructed
    classes = [k for k in picked(index, call.func, func) if isinstance(k, Klass)] if constructed is None else []
    if classes:  # self.CLASSES[name](path): `self` is at least the chosen classes' nearest common base
        return common_base(index, classes)
    if isinstance(call.func, ast.Attribute) and not on_self(call.func, func):
        owner = index.type_of(call.func.value, func)
        if owner is None:  # a Union receiver: the member whose method this is
            owner = next((k for k in union_members(index, call.func.value, func)
                          if index.method(k, target.node.name) is target), None)
        return narrowed(index, owner, target) if isinstance(owner, Klass) else None
    return None


def narrowed(index, receiver: Klass, target: Func) -> Klass:
    """Inside ``target`` (a method of a subclass of ``receiver``: an override reached through the base),
    ``self`` is at least ``target``'s class."""
    if target.cls is not None and target.cls is not receiver and any(
            receiver is base for base in _ancestors(index, target.cls)):
        return target.cls
    return receiver


def _ancestors(index, klass: Klass) -> list[Klass]:
    out, todo = [], [b for b in index.bases(klass) if isinstance(b, Klass)]
    while todo and len(out) < 32:
        k = todo.pop()
        if all(k is not o for o in out):
            out.append(k)
            todo.extend(b for b in index.bases(k) if isinstance(b, Klass))
    return out


def dispatched(index, call: ast.Call, func: Func, target: Func, receiver: Klass | None) -> Func:
    """``self.m()`` in a method whose ``self`` the call path knows to be a ``receiver``: the ``m`` of that class
    (an override in a subclass of the class ``func`` is written in), not the one of ``func``'s own class."""
    if receiver is None or target.cls is None or not on_self(call.func, func) or receiver is func.cls:
        return target
    actual = index.method(receiver, target.node.name)
    return actual if actual is not None else target


def lacks(index, klass, method: str) -> bool:
    """Whether a receiver typed ``klass`` cannot have ``method``: neither the class nor any base defines it, every
    base is a class of the analysed files (a third-party base may define anything), and it has no ``__getattr__``
    nor an attribute of that name. Then the type is wrong -- an annotation naming the settings class whose factory
    builds the real object (``-> EmbedderSettings`` over a LangChain embedder) -- and the call is read as on a
    receiver of unknown type."""
    if not isinstance(klass, Klass):
        return False
    todo, seen = [klass], 0
    while todo and seen < 16:
        k = todo.pop()
        seen += 1
        if method in k.methods or "__getattr__" in k.methods or method in index.attributes(k):
            return False
        for base in index.bases(k):
            if not isinstance(base, Klass):
                if str(base).rpartition(".")[2] not in ("object", "BaseModel", "BaseSettings", "ABC"):
                    return False
                continue
            todo.append(base)
    return True
