"""A library callable kept on the instance: ``self.Document = Document`` in ``__init__``, then ``self.Document(buf)``.

Parsers and adapters often bind the library function or class they will call to an attribute (so that a
subclass or a test can swap it): ``self.load_workbook = load_workbook``, ``self.PdfReader = PdfReader``. A call of
that attribute runs what was bound, not a method of the class. So does a method bound off another attribute of the
instance (``self.db = Redis(url); self.set = self.db.set``: ``self.set(k, v)`` is ``Redis.set``; held-out wave 44). :func:`stored_callable` answers with it when every
``self.<attr> = value`` of the class (and of the classes it derives from in the analysed files) binds the same
library function or class (a dotted name outside the analysed files) -- never a call's result, whose value is
an instance typed elsewhere -- and no code outside those classes sets the attribute (memoised per class and
name). Stores of ``None`` and the rebinding ``self.client = self.client(...)`` (the instance built from the stored
class; held-out wave 80) do not count; a conditional expression between two library classes of one package counts
as the first (:mod:`~faultlib.detect.serving.blocking.library_twins`). Used by :meth:`~faultlib.detect.serving.blocking.index.Index.callee` when the class has no method of that
name.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.library_twins import library_twin
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["stored_callable"]


def stored_callable(index, klass: Klass, attr: str) -> str | None:
    """What ``self.<attr>(...)`` calls on an instance of ``klass`` when the attribute holds a bound callable."""
    memo = index.__dict__.setdefault("_stored_callables", {})
    key = (id(klass), attr)
    if key not in memo:
        memo[key] = _stored(index, klass, attr)
    return memo[key]


def _stored(index, klass: Klass, attr: str) -> str | None:
    owners = [klass, *(b for b in index.bases(klass) if isinstance(b, Klass))]
    found = []
    for target, value, position, func in list(_writes(index).get(attr, ())):  # a copy: resolving may read more
        on_self = isinstance(target.value, ast.Name) and target.value.id == "self" and func is not None
        if on_self and func.cls not in owners:
            continue  # another class's own attribute of that name
        if position is not None or not on_self:
            return None  # set from outside too (pipeline.handler = segment): stores.py weighs the choices
        if _cleared(value) or _built_in_place(value, attr):
            continue  # self.client = None; self.client = self.client(key=k): the instance the stored class builds
        if isinstance(value, ast.IfExp):  # self.client = DemoClient if demo else Client (library_twins.py)
            sides = [index.resolve_parts(p, func.module, func) if (p := dotted(side)) else None
                     for side in (value.body, value.orelse)]
            found.append(library_twin(sides))
            continue
        parts = dotted(value)
        if not parts:
            return None  # a call's result or any other value: an instance, not a bound callable
        found.append(index.callee(value, func) if parts[0] == "self" else index.resolve_parts(parts, func.module, func))
    if not found or not isinstance(found[0], str) or any(f != found[0] for f in found):
        return None  # a function of the analysed files is followed where it is stored (holders, stores)
    return found[0]


def _cleared(value: ast.expr) -> bool:
    """``self.attr = None``: the attribute emptied, nothing stored that a call could run."""
    return isinstance(value, ast.Constant) and value.value is None


def _built_in_place(value: ast.expr, attr: str) -> bool:
    """``self.attr = self.attr(...)``: the class the attribute held, called, and the instance stored over it (the
    call itself runs what the attribute held before)."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == attr
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "self")


def _writes(index) -> dict[str, list[tuple[ast.Attribute, ast.expr, int | None, Func | None]]]:
    """Every module's ``attr_writes`` by attribute name, in module then source order, built once per index and
    extended by the modules a library's index reads later (they come after the others)."""
    modules = index.distinct_modules()
    seen, table = index.__dict__.get("_stored_callable_writes", (0, {}))
    for module in modules[seen:]:
        for write in module.attr_writes:
            table.setdefault(write[0].attr, []).append(write)
    index.__dict__["_stored_callable_writes"] = (len(modules), table)
    return table
