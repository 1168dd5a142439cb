"""The annotation that declares a container expression, and the module it is written in.

``route.slots`` declares what a class annotates ``slots`` with, in its body (``slots: list[Slot] = field(...)``) or
in a method (``self.slots: list[Slot] = []``), on ``self``/``cls`` or on any receiver whose class the analysis knows
(``route = table.find(name)``); ``route.usable()`` declares the return annotation of the method it calls (``-> list[
Slot]``, a ``@property`` read without a call too), ``await repo.slots()`` that of a coroutine, ``pick_all()`` that of
a function of the analysed files; a parameter, a local ``AnnAssign`` or a module global declares its own annotation
(PEP 526 variable annotations, PEP 484 return annotations: https://peps.python.org/pep-0526/,
https://peps.python.org/pep-0484/). The module matters: the annotation's names (a forward reference ``"Slot"``, a
name imported under ``if TYPE_CHECKING:``) resolve where it is written, not where the container is read (held-out
wave 76: an LLM gateway's route handler looping over ``model.get_available_providers()`` annotated ``-> list[
ProviderInstance]`` in another module). Used by :mod:`~faultlib.detect.serving.blocking.annotated_items`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, Module, nodes_of
from faultlib.detect.serving.blocking.shapes import is_property

__all__ = ["declaration"]

MAX_DEPTH = 8
Declared = tuple[ast.expr, Module]


def declaration(index, expr: ast.expr, func: Func) -> Declared | None:
    """``(annotation, module it is written in)`` declaring ``expr`` read in ``func`` (see the module docstring)."""
    if isinstance(expr, ast.Await) and isinstance(expr.value, ast.Call):
        target = index.callee(expr.value.func, func)
        return _returned(target) if isinstance(target, Func) and target.is_async else None
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and (owner := _owner(index, expr.func.value, func)) is not None:
            return _method_returns(index, owner, expr.func.attr, False, 0)
        target = index.callee(expr.func, func)  # pick_all(), helpers.pick_all()
        return _returned(target) if isinstance(target, Func) and not target.is_async else None
    if isinstance(expr, ast.Attribute):
        owner = _owner(index, expr.value, func)
        if owner is None:
            return None
        return _attribute_annotation(index, owner, expr.attr, 0) or _method_returns(index, owner, expr.attr, True, 0)
    if isinstance(expr, ast.Name):
        return _name_annotation(expr.id, func)
    return None


def _owner(index, receiver: ast.expr, func: Func) -> Klass | None:
    """The class of the analysed files whose instance (or the class itself: ``Registry.open``) ``receiver`` is."""
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") and func.cls is not None:
        return func.cls
    found = index.type_of(receiver, func)
    if found is None and isinstance(receiver, (ast.Name, ast.Attribute)):
        found = index.callee(receiver, func)
    return found if isinstance(found, Klass) else None


def _returned(target: Func) -> Declared | None:
    return (target.node.returns, target.module) if target.node.returns is not None else None


def _name_annotation(name: str, func: Func) -> Declared | None:
    """A parameter's annotation, a local's annotated assignment, or a module global's when ``func`` has no local of
    that name."""
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return (arg.annotation, func.module) if arg.annotation is not None else None
    for node in nodes_of(func, ast.AnnAssign):
        if isinstance(node.target, ast.Name) and node.target.id == name:
            return node.annotation, func.module
    if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in nodes_of(func, ast.Name)):
        return None
    for node in func.module.tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.annotation, func.module
    return None


def _attribute_annotation(index, klass: Klass, name: str, depth: int) -> Declared | None:
    """``name: X`` in the class body, or ``self.name: X = ...`` in one of its methods; else the nearest base's."""
    for node in klass.node.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.annotation, klass.module
    for method in klass.methods.values():
        args = method.node.args.args
        me = args[0].arg if args else None
        for node in nodes_of(method, ast.AnnAssign):
            target = node.target
            if isinstance(target, ast.Attribute) and target.attr == name and isinstance(target.value, ast.Name) \
                    and target.value.id == me:
                return node.annotation, klass.module
    return _in_bases(index, klass, depth, lambda base: _attribute_annotation(index, base, name, depth + 1))


def _method_returns(index, klass: Klass, name: str, getter: bool, depth: int) -> Declared | None:
    """The return annotation of method ``name`` of ``klass`` (or its nearest base that has it): a ``@property``
    getter when ``getter``, else a plain (sync) method."""
    method = klass.methods.get(name)
    if method is not None:
        return _returned(method) if is_property(method) == getter and not method.is_async else None
    return _in_bases(index, klass, depth, lambda base: _method_returns(index, base, name, getter, depth + 1))


def _in_bases(index, klass: Klass, depth: int, ask) -> Declared | None:
    if depth >= MAX_DEPTH:
        return None
    for base in index.bases(klass):
        if isinstance(base, Klass):
            found = ask(base)
            if found is not None:
                return found
    return None
