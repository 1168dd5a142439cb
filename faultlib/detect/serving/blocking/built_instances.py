"""Locals of a class's own method that hold a fresh instance of that class: an alternate constructor's
``obj = cls()`` (issue 17, held-out wave 74).

A factory classmethod may build the instance in a local and set its attributes there, instead of in ``__init__``::

    @classmethod
    async def create(cls, path):
        self = Predictor()            # or obj = cls(), obj = cls.__new__(cls)
        self.model = XGBClassifier()
        self.model.load_model(path)
        return self

"Class methods ... are used as alternative constructors" (https://docs.python.org/3/library/functions.html#
classmethod), and an assignment to an attribute of an instance sets that instance's attribute, as ``self.x = ...``
in ``__init__`` does (https://docs.python.org/3/reference/simple_stmts.html#assignment-statements: "the object must
allow attribute assignment ... it is asked to assign the assigned object to the given attribute"). So such a store
types the instance attribute for every method of the class -- ``self.model.predict(rows)`` in an async ``predict``
is the ``XGBClassifier``'s -- and for the local itself in the factory. Held-out wave 74: a model service whose
``create`` factory loads the model, the broker client and the reference data on a local named ``self``.

:func:`instance_names` gives, for a method of ``klass``, its first positional parameter (``self``; ``cls`` of a
classmethod, whose stores are class attributes) and each local whose every assignment in the method builds an
instance of ``klass``: ``Klass(...)``, ``cls(...)`` in a classmethod, or ``Klass.__new__(...)``/``cls.__new__(...)``/
``object.__new__(cls)``/``super().__new__(cls)``. Used by :mod:`~faultlib.detect.serving.blocking.index`
(attribute types) and :mod:`~faultlib.detect.serving.blocking.stores` (an attribute's several values).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted, nodes_of
from faultlib.detect.serving.blocking.scopes import _is_classmethod

__all__ = ["instance_names"]


def instance_names(method: Func, klass: Klass) -> frozenset[str]:
    """The names that hold an instance of ``klass`` (or ``klass`` itself, for a classmethod's ``cls``) in ``method``:
    its first positional parameter and the locals built by a constructor of ``klass`` (memoised per method)."""
    known = method.__dict__.get("_faultlib_instance_names")
    if known is None:
        known = method.__dict__["_faultlib_instance_names"] = frozenset(_names(method, klass))
    return known


def _names(method: Func, klass: Klass) -> set[str]:
    args = method.node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    names = set(positional[:1])
    cls_name = positional[0] if positional and _is_classmethod(method.node) else None
    built: dict[str, bool] = {}
    for node in nodes_of(method, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id not in positional:
                built[target.id] = built.get(target.id, True) and _constructs(node.value, klass, cls_name)
    return names | {name for name, every in built.items() if every}


def _constructs(value: ast.expr, klass: Klass, cls_name: str | None) -> bool:
    """``value`` builds an instance of ``klass``: ``Klass(...)``, ``cls(...)``, or a ``__new__`` of either."""
    if not isinstance(value, ast.Call):
        return False
    own = {klass.node.name} | ({cls_name} if cls_name else set())
    callee = dotted(value.func)
    if callee is not None and len(callee) == 1 and callee[0] in own:
        return True
    if isinstance(value.func, ast.Attribute) and value.func.attr == "__new__" and value.args:
        first = value.args[0]
        return isinstance(first, ast.Name) and first.id in own
    return False
