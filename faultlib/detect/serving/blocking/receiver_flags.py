"""A branch gated by a flag of the object the call path runs on, when that object was built with the flag off.

``selector = Selector(content=html)`` then ``selector.css(q)``: on this path every method runs on that one object,
and ``if self.__adaptive_enabled and auto_save: self.save(...)`` in one of them tests a flag its constructor set from
``adaptive``, left at its default ``False``. The branch never runs on the path, so what it reaches (a SQLite write of
the element) is not reached this way. The object is a local of a function on the path bound once to a constructor
call of a class of the analysed files (``x = C(...)``; or ``C(...).m()``) whose method the path calls next; it stays
the receiver while each later step calls ``self.m(...)``. A flag is an attribute every write of which (``self.attr =
value`` in any method of the class or of its bases in the analysed files) is in the ``__init__`` the constructor call
runs, and has a constant value, or is the constructor's parameter (or ``bool(parameter)``) given a constant or left
at a constant default by that call. The tests read are ``self.attr``, ``not self.attr`` and ``and``/``or`` of tests
(:class:`~faultlib.detect.serving.blocking.branches.Branches` decides the parameters' share); anything else leaves
the path as it is. Held-out wave 67: a scraper's page parser whose adaptive element store (SQLite) runs only for a
parser built with ``adaptive=True``, reached from a challenge check that builds its own parser without it. Used by
:meth:`~faultlib.detect.serving.blocking.branches.Branches.through_untaken`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.dependency_receivers import INSTANCE, dependency_construction, injected_instance
from faultlib.detect.serving.blocking.handed_in import lineage
from faultlib.detect.serving.blocking.infer import _single_assignment
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["ReceiverFlags"]

_UNKNOWN = object()


class ReceiverFlags:
    """Per analysis; ``guards``: branches._guards (the tests around a call, each with whether it is in the body),
    ``never``: a test's verdict given the receiver's flags (see :meth:`flags`)."""

    def __init__(self, index, guards, never) -> None:
        self.index = index
        self._guards = guards
        self._never = never
        self._writes: dict[int, dict[str, list[tuple[Func, ast.expr]]]] = {}

    def untaken(self, path) -> bool:
        """Whether a step of ``path`` (``((func, line), ...)``) calls, on an object built earlier on the path, a
        method in a branch that object's flags never take."""
        flags: dict[str, set] | None = None
        for (func, line), nxt in zip(path, [*path[1:], None]):
            calls = [n for n in func.nodes if isinstance(n, ast.Call) and n.lineno == line]
            if flags is not None and calls and all(self._untaken(call, func, flags) for call in calls):
                return True
            if flags is not None and not all(_on_self(call) for call in calls):
                flags = None  # the path leaves the object
            if flags is None and nxt is not None and len(calls) == 1:
                flags = self._built(calls[0], func, nxt[0])
        return False

    def _untaken(self, call: ast.Call, func: Func, flags: dict[str, set]) -> bool:
        return any(self._never(func, test, in_body, flags) for test, in_body in self._guards(func.node.body, call))

    def _built(self, call: ast.Call, func: Func, callee: Func) -> dict[str, set] | None:
        """The flags of the object ``call`` (``x.m(...)``) runs ``callee`` on, when ``x`` was built on the spot."""
        if not isinstance(call.func, ast.Attribute) or callee.cls is None:
            return None
        receiver = call.func.value
        made = _single_assignment(func, receiver.id) if isinstance(receiver, ast.Name) else receiver
        if not isinstance(made, ast.Call):  # self.bus = Depends(Bus.provider): what the provider builds
            klass = callee.cls
            provided = dependency_construction(self.index, receiver, func, klass)
            if provided is None or callee.node.name not in _methods(self.index, klass):
                return None
            return self.flags(klass, *provided)
        klass = self.index.callee(made.func, func)
        if not isinstance(klass, Klass) or callee.node.name not in _methods(self.index, klass):
            return None
        return self.flags(klass, made)

    def flags(self, klass: Klass, made: ast.Call, provider: Func | None = None) -> dict[str, set]:
        """``{attribute: the constant values it may hold}`` for an instance of ``klass`` built by ``made``, for the
        attributes whose every write is known (see the module docstring); ``provider``: the FastAPI dependency
        whose ``return`` is ``made``, whose injected parameters hold instances
        (:mod:`~faultlib.detect.serving.blocking.dependency_receivers`)."""
        init = self.index.method(klass, "__init__")
        found: dict[str, set] = {}
        for attr, writes in self._all_writes(klass).items():
            values: set = set()
            for method, value in writes:
                constant = _value(value, method, made, self._injected(provider)) if method is init else _UNKNOWN
                if constant is _UNKNOWN:
                    break
                values.add(constant)
            else:
                found[attr] = values
        return found

    def _injected(self, provider: Func | None):
        """``given -> bool``: whether an argument of the construction is an instance the provider is handed."""
        return lambda given: provider is not None and injected_instance(self.index, provider, given)

    def _all_writes(self, klass: Klass) -> dict[str, list[tuple[Func, ast.expr]]]:
        """``self.attr = value`` in every method of ``klass`` and its bases of the analysed files (``None`` as the
        value of a write that is not a plain assignment: augmented, annotated without value, unpacked)."""
        key = id(klass)
        if key not in self._writes:
            table: dict[str, list[tuple[Func, ast.expr]]] = {}
            for owner in lineage(self.index, klass):
                for method in owner.methods.values():
                    for node in method.nodes:
                        for target, value in _stores(node):
                            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                    and target.value.id == "self"):
                                table.setdefault(target.attr, []).append((method, value))
            self._writes[key] = table
        return self._writes[key]


def _stores(node: ast.AST):
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield target, node.value if isinstance(target, ast.Attribute) else None
            for inner in target.elts if isinstance(target, (ast.Tuple, ast.List)) else ():
                yield inner, None
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        yield node.target, node.value if isinstance(node, ast.AnnAssign) else None
    elif isinstance(node, (ast.For, ast.With, ast.NamedExpr)):
        for target in ast.walk(node.target) if isinstance(node, (ast.For, ast.NamedExpr)) else (
                n for item in node.items if item.optional_vars is not None for n in ast.walk(item.optional_vars)):
            yield target, None


def _value(value: ast.expr | None, init: Func, made: ast.Call, injected=lambda given: False):
    """The constant ``value`` (written in ``init``) holds for the construction ``made``, or ``_UNKNOWN``; an argument
    ``injected`` says is an always-true instance holds :data:`~faultlib.detect.serving.blocking.dependency_receivers.
    INSTANCE`."""
    if value is None:
        return _UNKNOWN
    if isinstance(value, ast.Constant):
        return value.value
    truth = isinstance(value, ast.Call) and dotted(value.func) == ["bool"] and len(value.args) == 1
    name = value.args[0] if truth else value
    if not isinstance(name, ast.Name) or any(
            isinstance(n, ast.Name) and n.id == name.id and not isinstance(n.ctx, ast.Load) for n in init.nodes):
        return _UNKNOWN
    given = _given(init, name.id, made)
    if injected(given):
        return True if truth else INSTANCE
    if not isinstance(given, ast.Constant):
        return _UNKNOWN
    return bool(given.value) if truth else given.value


def _given(init: Func, param: str, made: ast.Call) -> ast.expr | None:
    """What the construction ``made`` passes for ``init``'s parameter ``param`` (its default when left out)."""
    args = init.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]][1:]  # less self
    if any(isinstance(a, ast.Starred) for a in made.args) or any(k.arg is None for k in made.keywords):
        return None
    for keyword in made.keywords:
        if keyword.arg == param:
            return keyword.value
    if param in positional and positional.index(param) < len(made.args):
        return made.args[positional.index(param)]
    defaults = dict(zip([a.arg for a in [*args.posonlyargs, *args.args]][-len(args.defaults):] if args.defaults else [],
                        args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return defaults.get(param)


def _methods(index, klass: Klass) -> set[str]:
    return {name for k in lineage(index, klass) for name in k.methods}


def _on_self(call: ast.Call) -> bool:
    """``self.m(...)``: the next step runs on the same object."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    return isinstance(receiver, ast.Name) and receiver.id == "self"
