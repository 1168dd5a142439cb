"""Every class of the analysed files a receiver may hold, each assignment followed (not only the first).

``type_of`` answers one type per value: for ``self.asr`` assigned ``SimulASR(...)`` in one branch and the first item
of ``backend_factory(args)`` in another -- whose local is ``OpenaiASR(...)`` on one branch and ``asr_cls(...)``, a
class chosen among three, on the other -- it names the first. A method call on such a receiver may run the method
of any of them (``self.asr.transcribe(...)``: whichever backend the settings chose). This module collects them:
``self.<attr>`` from every ``self.<attr> = value`` of its class, an unannotated parameter from every call site's
argument, a local from every assignment (tuple items by position), a factory call from every ``return`` (tuple
items by position), ``A() if x else B()`` both sides, and a local assigned a class in several branches
(``cls = A`` / ``cls = B``; ``cls(...)``) each class. Used by
:func:`~faultlib.detect.serving.blocking.choices.factory_choices`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.generics import origin
from faultlib.detect.serving.blocking.infer import _argument, _positional
from faultlib.detect.serving.blocking.model import (
    Func,
    Klass,
    _is_static,
    dotted,
    nodes_of,
)

__all__ = ["held_classes", "self_stores"]

MAX_DEPTH = 8      # assignments, parameters and returns followed from the receiver
MAX_CLASSES = 8    # classes collected for one receiver
MAX_SITES = 16     # call sites read for one parameter


def held_classes(index, expr: ast.expr, func: Func) -> list[Klass]:
    """The classes of the analysed files that the value of ``expr`` in ``func`` may be an instance of, from every
    assignment the code makes to it (see the module docstring); at most :data:`MAX_CLASSES`, [] when unknown."""
    memo = index.__dict__.setdefault("_faultlib_held", {})
    key = (id(expr), id(func))
    if key not in memo:
        found: list[Klass] = []
        _Walk(index).value(expr, func, 0, found, set())
        memo[key] = found
    return memo[key]


class _Walk:
    def __init__(self, index) -> None:
        self.index = index

    def _add(self, klass, found: list[Klass]) -> None:
        if isinstance(klass, Klass) and len(found) < MAX_CLASSES and all(origin(klass) is not origin(k) for k in found):
            found.append(klass)

    def value(self, expr: ast.expr, func: Func, depth: int, found: list[Klass], seen: set, position=None) -> None:
        """Add the classes ``expr`` may evaluate to (item ``position`` of it, when unpacked)."""
        mark = (id(expr), id(func), position)
        if depth > MAX_DEPTH or mark in seen or len(found) >= MAX_CLASSES:
            return
        seen.add(mark)
        if isinstance(expr, ast.Await):
            expr = expr.value
        if isinstance(expr, ast.IfExp):
            for side in (expr.body, expr.orelse):
                self.value(side, func, depth + 1, found, seen, position)
        elif isinstance(expr, (ast.Tuple, ast.List)):
            if position is not None and position < len(expr.elts):
                self.value(expr.elts[position], func, depth + 1, found, seen)
        elif isinstance(expr, ast.Call):
            self._call(expr, func, depth, found, seen, position)
        elif isinstance(expr, ast.Name) and position is None:
            self._name(expr.id, func, depth, found, seen)
        elif isinstance(expr, ast.Attribute) and position is None:
            self._attribute(expr, func, depth, found, seen)

    def _call(self, call: ast.Call, func: Func, depth: int, found: list[Klass], seen: set, position) -> None:
        if position is None and isinstance(call.func, ast.Name):  # cls = A / cls = B in branches; cls(...)
            values = [side for v in _assigned(func, call.func.id)
                      for side in ((v.body, v.orelse) if isinstance(v, ast.IfExp) else (v,))]
            chosen = [self.index.callee(v, func) for v in values if dotted(v)]
            if len(chosen) > 1 and all(isinstance(k, Klass) for k in chosen):
                for klass in chosen:
                    self._add(klass, found)
                return
        target = self.index.callee(call.func, func)
        if isinstance(target, Klass):
            if position is None:
                self._add(target, found)
        elif isinstance(target, Func):
            for node in target.nodes:  # a factory: whatever any of its returns may hold
                if isinstance(node, ast.Return) and node.value is not None:
                    self.value(node.value, target, depth + 1, found, seen, position)

    def _name(self, name: str, func: Func, depth: int, found: list[Klass], seen: set) -> None:
        stores = _stores(func, name)
        if stores:
            for value, position in stores:
                self.value(value, func, depth + 1, found, seen, position)
            return
        params = _positional(func.node)
        if name not in params or _annotated(func, name) or func.parent is not None:
            return
        offset = 0 if func.cls is None or _is_static(func.node) else 1
        position = params.index(name) - offset
        if position < 0:
            return
        want_init = func.cls is not None and func.node.name == "__init__"
        key = func.cls.node.name if want_init else func.node.name
        expected = func.cls if want_init else func
        for call, caller in self.index.infer.sites().get(key, [])[:MAX_SITES]:
            if self.index.callee(call.func, caller) is not expected:
                continue
            arg = _argument(call, name, position)
            if arg is not None:
                self.value(arg, caller, depth + 1, found, seen)

    def _attribute(self, expr: ast.Attribute, func: Func, depth: int, found: list[Klass], seen: set) -> None:
        owner = expr.value
        if isinstance(owner, ast.Name) and func.cls is not None and _positional(func.node)[:1] == [owner.id]:
            klass = func.cls
        else:
            klass = self.index.type_of(owner, func)
        if not isinstance(klass, Klass):
            return
        for value, method, position in self_stores(origin(klass)).get(expr.attr, []):
            self.value(value, method, depth + 1, found, seen, position)


def _stores(func: Func, name: str) -> list[tuple[ast.expr, int | None]]:
    """``(value, position)`` of every ``name = value`` / ``..., name, ... = value`` of ``func``."""
    found = []
    for node in nodes_of(func, (ast.Assign, ast.AnnAssign)):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found.append((node.value, None))
                elif isinstance(target, ast.Tuple):
                    found += [(node.value, i) for i, e in enumerate(target.elts)
                              if isinstance(e, ast.Name) and e.id == name]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            found.append((node.value, None))
    return found


def self_stores(klass: Klass) -> dict[str, list[tuple[ast.expr, Func, int | None]]]:
    """``attr -> [(value, method, position)]`` of every ``self.attr = value`` (and ``self.a, self.b = value``, by
    position) in ``klass``'s methods (built once per class)."""
    table = klass.__dict__.get("_faultlib_held_stores")
    if table is None:
        table = klass.__dict__["_faultlib_held_stores"] = {}
        for method in klass.methods.values():
            params = _positional(method.node)
            for node in nodes_of(method, (ast.Assign, ast.AnnAssign)) if params and not _is_static(method.node) else []:
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                    for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        items = list(enumerate(target.elts)) if isinstance(target, ast.Tuple) else [(None, target)]
                        for position, item in items:
                            if (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name)
                                    and item.value.id == params[0]):
                                table.setdefault(item.attr, []).append((node.value, method, position))
    return table


def _assigned(func: Func, name: str) -> list[ast.expr]:
    return [v for v, p in _stores(func, name) if p is None]


def _annotated(func: Func, name: str) -> bool:
    args = func.node.args
    return any(a.arg == name and a.annotation is not None for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def overridden_store(index, klass: Klass, name: str):
    """The type of ``self.<name>`` for an instance of ``klass`` when a base stores it from a method ``klass``
    overrides: ``self.model = self.load_model(size)`` in ``ASRBase.__init__``, ``load_model`` returning a
    ``WhisperModel`` in the subclass (the base's own ``load_model`` only raises). None when there is no such store."""
    for base in index.bases(klass):
        if not isinstance(base, Klass):
            continue
        for value, method, position in self_stores(origin(base)).get(name, []):
            if (position is None and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and isinstance(value.func.value, ast.Name) and _positional(method.node)[:1] == [value.func.value.id]):
                override = index.method(klass, value.func.attr)
                if override is not None and override.cls is not None and origin(override.cls) is not origin(base):
                    found = index.return_type(override)
                    if found is not None:
                        return found
    return None
