"""The object a FastAPI dependency hands a route, read from the provider that builds it, with what the provider
passes it.

``event_bus: EventBusService = Depends(EventBusService.as_dependency)`` on a class-based view (or as a route's
parameter default, or in ``Annotated[EventBusService, Depends(...)]``) holds, at every request, what the provider
returns: FastAPI calls the provider and passes its result in place of the declaration
(https://fastapi.tiangolo.com/tutorial/dependencies/#declare-the-dependency-in-the-dependant). When the provider
returns one construction of the class (``return cls(bg, session)`` in a classmethod of it, or ``return
EventBusService(bg, session)``), the receiver of ``self.event_bus.dispatch(...)`` on a call path is the object that
construction built, so its flags are what that construction passes
(:mod:`~faultlib.detect.serving.blocking.receiver_flags`), whatever other constructions elsewhere pass (a scheduler
job's ``EventBusService()`` builds another object).

A provider's parameter FastAPI fills by its annotation holds an instance, never ``None``: ``bg: BackgroundTasks``
is "the object of type BackgroundTasks" FastAPI creates for the request
(https://fastapi.tiangolo.com/tutorial/background-tasks/#use-backgroundtasks). Starlette's ``BackgroundTasks``
defines neither ``__bool__`` nor ``__len__``, and "if a class defines neither ``__len__()`` nor ``__bool__()``, all
its instances are considered true" (https://docs.python.org/3/reference/datamodel.html#object.__bool__), so a flag
kept from it is true: ``if self.bg: self.bg.add_task(f) else: f()`` never takes the ``else`` on that object. Held-out
wave 45: a recipe manager's event bus queuing its webhooks as background tasks from every route, whose ``else`` (run
the webhooks at once, for the scheduler's own bus) was reported on the routes' loop.

Limits: only a parameter annotated exactly ``BackgroundTasks`` (not ``Optional``, no default) counts as injected;
``Request`` and ``WebSocket`` are mappings (their truth is their length) and are left out. A provider with more than
one ``return``, or returning anything but a construction of the receiver's class, gives nothing; so does an
attribute a subclass declares again (``self`` may be an instance of it), and ``Depends()`` with no provider (FastAPI
then builds the annotated class itself).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.handed_in import lineage
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["INSTANCE", "dependency_construction", "injected_instance"]

TRUTHY_INJECTED = frozenset({"fastapi.BackgroundTasks", "fastapi.background.BackgroundTasks",
                             "starlette.background.BackgroundTasks"})
"""Classes FastAPI fills a parameter with by its annotation whose instances are always true (see the module
docstring)."""


class _Instance:
    """An object a flag holds that is no constant: true, equal to nothing but itself."""

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "<an injected instance>"


INSTANCE = _Instance()


def dependency_construction(index, made: ast.expr, func: Func, klass: Klass) -> tuple[ast.Call, Func] | None:
    """``(the construction, the provider)`` when ``made`` (``self.attr`` or a parameter of ``func``) is declared
    ``= Depends(provider)`` and the provider returns one construction of ``klass`` (see the module docstring)."""
    declared = _declaration(index, made, func)
    if declared is None:
        return None
    provider = index.callee(declared.args[0], func)
    if not isinstance(provider, Func) or provider.is_async:
        return None
    returns = [n for n in provider.nodes if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, ast.Call):
        return None
    built = returns[0].value
    first = [*provider.node.args.posonlyargs, *provider.node.args.args]
    if (isinstance(built.func, ast.Name) and first and built.func.id == first[0].arg and provider.cls is klass
            and any(dotted(d) == ["classmethod"] for d in provider.node.decorator_list)):
        return built, provider  # return cls(bg, session)
    return (built, provider) if index.callee(built.func, provider) is klass else None


def injected_instance(index, provider: Func, given: ast.expr | None) -> bool:
    """Whether ``given`` (an argument of the provider's construction) is a parameter of the provider FastAPI fills
    with an always-true instance (see the module docstring)."""
    if not isinstance(given, ast.Name) or any(
            isinstance(n, ast.Name) and n.id == given.id and not isinstance(n.ctx, ast.Load) for n in provider.nodes):
        return False
    args = provider.node.args
    positional = [*args.posonlyargs, *args.args]
    with_default = {a.arg for a in positional[len(positional) - len(args.defaults):]} | {
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
    for arg in [*positional, *args.kwonlyargs]:
        if arg.arg == given.id and arg.arg not in with_default and arg.annotation is not None:
            parts = dotted(arg.annotation)
            found = index.resolve_parts(parts, provider.module, None) if parts else None
            return isinstance(found, str) and found in TRUTHY_INJECTED
    return False


def _declaration(index, made: ast.expr, func: Func) -> ast.Call | None:
    """The ``Depends(provider)`` call that declares ``made``: a parameter's default or ``Annotated`` metadata, or a
    class attribute of ``func``'s class (or a base of it in the analysed files)."""
    if isinstance(made, ast.Name):
        args = func.node.args
        positional = [*args.posonlyargs, *args.args]
        defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        for arg in [*positional, *args.kwonlyargs]:
            if arg.arg == made.id:
                return _depends(index, defaults.get(arg.arg), func) or _annotated(index, arg.annotation, func)
        return None
    first = [*func.node.args.posonlyargs, *func.node.args.args]
    if not (isinstance(made, ast.Attribute) and isinstance(made.value, ast.Name) and first
            and made.value.id == first[0].arg and func.cls is not None):
        return None
    if any(_declared(sub, made.attr) for sub in index.subclasses(func.cls)):
        return None  # a subclass may declare the attribute with another provider: `self` may be one of it
    for owner in lineage(index, func.cls):
        statement = _declared(owner, made.attr)
        if isinstance(statement, ast.AnnAssign):
            return _depends(index, statement.value, func) or _annotated(index, statement.annotation, func)
        if statement is not None:
            return _depends(index, statement.value, func)
    return None


def _declared(klass: Klass, name: str) -> ast.AnnAssign | ast.Assign | None:
    """The statement of ``klass``'s body that binds the class attribute ``name``, or None."""
    for statement in klass.node.body:
        if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                and statement.target.id == name):
            return statement
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                     for t in statement.targets):
            return statement
    return None


def _depends(index, node: ast.expr | None, func: Func) -> ast.Call | None:
    if (isinstance(node, ast.Call) and len(node.args) == 1 and (dotted(node.func) or [""])[-1] == "Depends"
            and str(index.callee(node.func, func) or "").startswith("fastapi.")):
        return node
    return None


def _annotated(index, node: ast.expr | None, func: Func) -> ast.Call | None:
    """``Annotated[T, Depends(provider)]``: the ``Depends`` call among its metadata."""
    if not (isinstance(node, ast.Subscript) and (dotted(node.value) or [""])[-1] == "Annotated"
            and isinstance(node.slice, ast.Tuple)):
        return None
    return next((found for meta in node.slice.elts[1:] if (found := _depends(index, meta, func)) is not None), None)
