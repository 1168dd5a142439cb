"""SQLAlchemy ``init`` event listeners: constructing a mapped class runs them.

``@event.listens_for(User, "init")`` (or ``event.listen(User, "init", fn)``) registers ``fn`` for the instance event
``InstanceEvents.init``, "Receive an instance when its constructor is called. This method is only called during a
userland construction of an object, in conjunction with the object's constructor, e.g. its ``__init__`` method"
(https://docs.sqlalchemy.org/en/20/orm/events.html#sqlalchemy.orm.InstanceEvents.init); ``init_failure`` runs when
that constructor raises. The listener runs in the thread that writes ``User(email=..., password=...)``: a password
hashed there with bcrypt blocks the handler that builds the user (held-out wave 65: a Litestar sign-up handler).
A listener registered with ``propagate=True`` also runs for the subclasses of the class it names. Used by
:func:`~faultlib.detect.serving.blocking.metaclasses.constructor_functions`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted, module_nodes, module_nodes_of

__all__ = ["init_listeners"]

EVENTS = frozenset({"init", "init_failure"})
REGISTRARS = frozenset({"sqlalchemy.event.listens_for", "sqlalchemy.event.api.listens_for", "sqlalchemy.event.listen",
                        "sqlalchemy.event.api.listen"})


def init_listeners(index, klass: Klass) -> list[Func]:
    """The sync functions of the analysed files registered for ``klass``'s ``init`` events (memoised per index)."""
    table = _table(index)
    found = [f for f, _ in table.get(id(klass), [])]
    for base in _ancestors(index, klass):
        found += [f for f, propagate in table.get(id(base), []) if propagate and f not in found]
    return found


def _ancestors(index, klass: Klass, depth: int = 0) -> list[Klass]:
    out = []
    for base in index.bases(klass) if depth < 8 else []:
        if isinstance(base, Klass) and base not in out:
            out += [base, *_ancestors(index, base, depth + 1)]
    return out


def _table(index) -> dict[int, list[tuple[Func, bool]]]:
    """``{id(class): [(listener, propagate), ...]}`` over the analysed files, built once per index."""
    if "_faultlib_init_listeners" not in index.__dict__:
        index.__dict__["_faultlib_init_listeners"] = _registrations(index)
    return index.__dict__["_faultlib_init_listeners"]


def _registrations(index) -> dict[int, list[tuple[Func, bool]]]:
    memo: dict[int, list[tuple[Func, bool]]] = {}
    for module in index.distinct_modules():
        top = index.infer.module_func(module)
        for func in module.all_functions:
            for decorator in func.node.decorator_list:
                if isinstance(decorator, ast.Call) and not func.is_async:
                    _register(index, memo, decorator, top, func)
        named = any(len(n.args) >= 3 and _names_event(n) for n in module_nodes_of(module, ast.Call))
        for node in module_nodes(module) if named else []:  # the tree's order, walked only where one may register
            if isinstance(node, ast.Call) and len(node.args) >= 3 and _names_event(node) and dotted(node.func):
                listener = index.callee(node.args[2], top)
                if isinstance(listener, Func) and not listener.is_async:
                    _register(index, memo, node, top, listener)
    return memo


def _names_event(call: ast.Call) -> bool:
    """Whether ``call``'s second argument is the name of an ``init`` event (checked before its listener is
    resolved: most calls of three arguments name none)."""
    return len(call.args) >= 2 and isinstance(call.args[1], ast.Constant) and call.args[1].value in EVENTS


def _register(index, memo: dict, call: ast.Call, scope: Func, listener: Func) -> None:
    """Record ``listener`` when ``call`` is ``listens_for(Cls, "init", ...)``/``listen(Cls, "init", fn, ...)``."""
    if not _names_event(call):
        return
    if index.callee(call.func, scope) not in REGISTRARS:
        return
    target = index.callee(call.args[0], scope)
    if not isinstance(target, Klass):
        return
    propagate = any(k.arg == "propagate" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in call.keywords)
    entries = memo.setdefault(id(target), [])
    if all(f is not listener for f, _ in entries):
        entries.append((listener, propagate))
