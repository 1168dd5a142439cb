"""Receivers that may hold one of several classes: a ``Union[A, B]``/``A | B`` annotation, a local assigned a class
reference in several branches (``Loader = AutoModel`` / ``Loader = AutoModelForCausalLM``), the nearest common
base of classes chosen at run time, and an instance a factory made from one of several classes (one per branch).
Used by :mod:`~faultlib.detect.serving.blocking.index` (callees) and
:mod:`~faultlib.detect.serving.blocking.reach` (a Union receiver runs each member's method)."""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.bound_classes import bound_classes
from faultlib.detect.serving.blocking.generics import origin
from faultlib.detect.serving.blocking.holders import held_classes
from faultlib.detect.serving.blocking.infer import _single_assignment
from faultlib.detect.serving.blocking.literal_loop_types import looped_classes
from faultlib.detect.serving.blocking.loop_items import loop_callees
from faultlib.detect.serving.blocking.narrowing import narrowed
from faultlib.detect.serving.blocking.model import Func, Klass, dotted, nodes_of
from faultlib.detect.serving.blocking.passed import passed_callees
from faultlib.detect.serving.blocking.registries import registered
from faultlib.detect.serving.blocking.returned_unions import returned_annotation

__all__ = ["chosen", "common_base", "factory_choices", "union_members"]


def common_base(index, classes: list[Klass]) -> Klass | None:
    """The nearest class of the analysed files that every one of ``classes`` is or derives from (a class chosen
    at run time among them is at least that), or None."""
    def lineage(klass: Klass) -> list[Klass]:
        out, todo = [], [origin(klass)]
        while todo and len(out) < 32:
            k = todo.pop(0)
            if all(k is not seen for seen in out):
                out.append(k)
                todo.extend(b for b in index.bases(k) if isinstance(b, Klass))
        return out
    first, *rest = [lineage(k) for k in classes]
    for candidate in first:
        if all(any(candidate is k for k in other) for other in rest):
            return candidate
    return None


def union_members(index, expr: ast.expr, func: Func) -> list[Klass]:
    """The classes of the analysed files a name annotated ``Union[A, B]``/``A | B`` (a parameter, or a local
    annotated where it is assigned) may hold, or a name bound to the call of a function annotated to return one
    (:mod:`~faultlib.detect.serving.blocking.returned_unions`); empty for anything else, and where an
    ``isinstance`` test has narrowed the name to one class (:mod:`~faultlib.detect.serving.blocking.narrowing`:
    ``if isinstance(client, AsyncLogic): await client.fetch()`` runs ``AsyncLogic``'s; held-out wave 67). A name
    with no annotation at all: the classes its bindings construct (:mod:`~faultlib.detect.serving.blocking.bound_classes`:
    a module global built by one class or another in an if/else), or a loop variable walking a table of instances of
    several classes (:func:`~faultlib.detect.serving.blocking.literal_loop_types.looped_classes`)."""
    if not isinstance(expr, ast.Name) or narrowed(index, expr, func) is not None:
        return []
    args = func.node.args
    notes = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == expr.id]
    notes += [n.annotation for n in nodes_of(func, ast.AnnAssign) if isinstance(n.target, ast.Name)
              and n.target.id == expr.id]
    module = func.module
    if not any(n is not None for n in notes):  # cache = get_cache(): what the function's annotation says it returns
        returned = returned_annotation(index, expr, func)
        if returned is None:  # `if cfg: model = A() else: model = B()` at module level: either class
            return bound_classes(index, expr, func) or looped_classes(index, func, expr)  # for s in [A(), B()]
        notes, module = [returned[0]], returned[1]
    found: list[Klass] = []
    todo = [n for n in notes if n is not None]
    while todo and len(found) < 8:
        note = todo.pop(0)
        if isinstance(note, ast.Constant) and isinstance(note.value, str):
            try:
                note = ast.parse(note.value, mode="eval").body
            except SyntaxError:
                continue
        if isinstance(note, ast.BinOp) and isinstance(note.op, ast.BitOr):
            todo += [note.left, note.right]
        elif isinstance(note, ast.Subscript) and (dotted(note.value) or [""])[-1] in ("Union", "Optional"):
            todo += list(note.slice.elts) if isinstance(note.slice, ast.Tuple) else [note.slice]
        elif len(notes) == 1 and note is notes[0]:
            return []  # a plain annotation: type_of answers it
        else:
            klass = index.annotation_type(note, module)
            if isinstance(klass, Klass) and all(klass is not k for k in found):
                found.append(klass)
    return found if len(found) > 1 else []


def chosen(index, func: Func, name: str) -> list:
    """The classes a local assigned more than once, each time a class reference (``Loader = AutoModel`` in one
    branch, ``Loader = AutoModelForCausalLM`` in another), may hold: every value, when each names a class."""
    table = func.__dict__.setdefault("_faultlib_chosen", {})
    if name in table:
        return table[name]
    table[name] = found = []
    values = [n.value for n in nodes_of(func, ast.Assign)
              if any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if len(values) < 2 or sum(1 for n in nodes_of(func, ast.Name) if n.id == name
                              and isinstance(n.ctx, ast.Store)) != len(values):
        return found
    for value in values:
        parts = dotted(value)
        target = index.resolve_parts(parts, func.module, func) if parts and parts[0] != name else None
        if not (isinstance(target, Klass) or (isinstance(target, str) and target.rpartition(".")[2][:1].isupper()
                                              and not target.startswith("builtins."))):
            found.clear()
            return found
        found.append(target)
    return found


def picked(index, expr: ast.expr, func: Func) -> list:
    """What a call of ``expr`` may run when ``expr`` picks from a literal dict of functions or classes:
    ``loaders[name]``, ``loaders.get(name)``, a local bound once to either (``cls = self.CLASSES[name]``), the dict
    a name or the class body binds; a loop variable bound from a literal table
    (:func:`~faultlib.detect.serving.blocking.loop_items.loop_callees`); or a parameter the callers pass functions or classes for
    (:func:`~faultlib.detect.serving.blocking.passed.passed_callees`). The callees (:class:`Func`, :class:`Klass`),
    in order."""
    if isinstance(expr, ast.Name):
        passed = passed_callees(index, func, expr.id)
        if passed:  # servicer_cls(): what the callers pass for the parameter
            return passed
        looped = loop_callees(index, func, expr.id)
        if looped:  # for label, parse in [("md", parse_md), ...]: parse(path)
            return looped
        expr = _single_assignment(func, expr.id)  # cls = self.CLASSES[name]; cls(path): the same choice, via a local
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get":
        container = expr.func.value
    elif isinstance(expr, ast.Subscript):
        container = expr.value
    else:
        return []
    literal, scope = index.infer.literal(container, func), func
    if literal is None:  # from .registry import ROUTERS: the display another analysed module binds
        literal, scope = index.infer.imported_display(container, func)
    found = list(registered(index, container, func))  # TOOLS[name] = fn elsewhere: a registry a decorator fills
    if not isinstance(literal, ast.Dict):
        return found
    for value in literal.values:
        target = index.callee(value, scope) if dotted(value) else None
        if isinstance(target, (Func, Klass)) and all(target is not f for f in found):
            found.append(target)
    return found


def factory_choices(index, call: ast.Call, func: Func, target: Func) -> list[Func]:
    """``target`` and the same method of the other classes a factory may have returned into the receiver:
    ``self.online = make(args)`` where ``make`` returns ``A(...)`` on one branch and ``B(...)`` on another (a local
    assigned on each, or a return on each); ``self.online.step()`` runs ``A.step`` or ``B.step`` -- unless an
    ``isinstance`` test has narrowed the receiver to one class (``if isinstance(client, B): client.step()``)."""
    if not (isinstance(call.func, ast.Attribute) and target.cls is not None) or narrowed(
            index, call.func.value, func) is not None:
        return [target]
    classes = _returned_classes(index, _receiver_value(call.func.value, func), func)
    if len(classes) < 2 and not (isinstance(call.func.value, ast.Name) and call.func.value.id in ("self", "cls")):
        classes = held_classes(index, call.func.value, func)  # self.asr assigned A(...) here, B(...) there
    if len(classes) < 2 or all(origin(target.cls) is not origin(k) for k in classes):
        return [target]
    others = [index.method(k, target.node.name) for k in classes if origin(k) is not origin(target.cls)]
    return [target, *[m for m in others if isinstance(m, Func) and m is not target]]


def _receiver_value(expr: ast.expr, func: Func) -> ast.expr | None:
    """The one value a local (``x = v``) or an attribute of ``self`` (``self.x = v`` in any method of the class)
    is assigned, or None."""
    if isinstance(expr, ast.Name):
        return _single_assignment(func, expr.id)
    parts = dotted(expr)
    if not parts or len(parts) != 2 or parts[0] != "self" or func.cls is None:
        return None
    table = func.cls.__dict__.get("_faultlib_factory_receivers")
    if table is None:  # attribute -> every value `self.attr = value` stores, once per class
        table = func.cls.__dict__["_faultlib_factory_receivers"] = {}
        for method in func.cls.methods.values():
            for n in method.nodes:
                for t in n.targets if isinstance(n, ast.Assign) else ():
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        table.setdefault(t.attr, []).append(n.value)
    values = table.get(parts[1], [])
    return values[0] if len(values) == 1 else None


def _returned_classes(index, value: ast.expr | None, func: Func) -> list[Klass]:
    """The classes of the analysed files a call ``value`` of a factory function may return, or []."""
    factory = index.callee(value.func, func) if isinstance(value, ast.Call) else None
    if not isinstance(factory, Func):
        return []
    returned = [n.value for n in factory.nodes if isinstance(n, ast.Return) and n.value is not None]
    made = [n.value for n in factory.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name) and any(isinstance(r, ast.Name) and r.id == n.targets[0].id
                                                            for r in returned)]
    found: list[Klass] = []
    for candidate in [*returned, *made]:
        klass = index.callee(candidate.func, factory) if isinstance(candidate, ast.Call) else None
        if isinstance(klass, Klass) and all(origin(klass) is not origin(k) for k in found):
            found.append(klass)
    return found
