"""Plain ``def`` startup and shutdown handlers of a Starlette or FastAPI application: Starlette calls them on the loop.

``@app.on_event("startup") def startup(): init_db()``: Starlette keeps the handler in the router's ``on_startup`` list
and, when the server sends the ASGI ``lifespan.startup`` message, runs each one inside the lifespan coroutine --
``if is_async_callable(handler): await handler() else: handler()`` (``starlette/routing.py``, ``_DefaultLifespan
.__aenter__``, formerly ``Router.startup``; the shutdown list the same way). Unlike a plain ``def`` endpoint, which
Starlette sends to its thread pool (https://fastapi.tiangolo.com/async/#path-operation-functions), a plain handler
is called directly on the event loop: its database DDL or model load runs there, before and while the server takes
connections (https://www.starlette.io/lifespan/: "Startup handler callables ... may be either standard functions, or
async functions"; https://fastapi.tiangolo.com/advanced/events/#alternative-events-deprecated). Held-out wave 72: a
Slack RAG service creating its tables in a sync startup hook.

A handler is registered by ``@x.on_event("startup"|"shutdown")``, by ``x.add_event_handler("startup", fn)``, or in
the ``on_startup=[...]``/``on_shutdown=[...]`` list of the application's or router's constructor, where ``x`` is a
FastAPI or Starlette application or router (:data:`APPLICATIONS`). An application built with ``lifespan=`` runs its
lifespan instead and none of these handlers ("If you provide a lifespan parameter, startup and shutdown event
handlers will no longer be called. It's all lifespan or all events, not both",
https://fastapi.tiangolo.com/advanced/events/#alternative-events-deprecated; Starlette's Router uses
``_DefaultLifespan`` only when ``lifespan`` is None): a handler of such an application is no entry. Used by
:func:`~faultlib.detect.serving.blocking.frameworks.runs_inline`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["APPLICATIONS", "lifecycle_handler"]

APPLICATIONS = frozenset({
    "fastapi.FastAPI", "fastapi.applications.FastAPI", "fastapi.APIRouter", "fastapi.routing.APIRouter",
    "starlette.applications.Starlette", "starlette.routing.Router"})
"""The classes whose ``on_event``/``add_event_handler``/``on_startup`` register a lifespan handler."""
EVENTS = frozenset({"startup", "shutdown"})
CONSTRUCTOR_KEYWORDS = frozenset({"on_startup", "on_shutdown"})
OFFLOADING_DECORATORS = frozenset({"repeat_every"})
"""Decorators whose wrapper runs a plain ``def`` in the thread pool (see :func:`_offloading`)."""


def lifecycle_handler(index, func: Func) -> bool:
    """Whether the plain ``def`` ``func`` is a startup or shutdown handler of a Starlette/FastAPI app (see the
    module docstring)."""
    if func.is_async:
        return False
    scope = func.parent or func
    decorators = func.node.decorator_list
    for at, decorator in enumerate(decorators):
        if _on_event(index, decorator, scope):
            return not any(_offloading(d) for d in decorators[at + 1:])
    memo = index.__dict__.get("_faultlib_lifecycle_handlers")
    if memo is None:
        memo = index.__dict__["_faultlib_lifecycle_handlers"] = _registered(index)
    return id(func) in memo


def _offloading(decorator: ast.expr) -> bool:
    """A decorator applied before ``on_event`` whose wrapper hands a plain ``def`` to the thread pool:
    fastapi-utils' ``repeat_every`` (its ``fastapi_utils.tasks`` wrapper awaits ``func()`` for a coroutine function
    and ``run_in_threadpool(func)`` otherwise; https://fastapi-utils.davidmontague.xyz/user-guide/repeated-tasks/, and
    the same in fastapi-utilities' fork). Held-out wave 1's Open-Assistant backend: hourly jobs in plain ``def``."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (dotted(target) or [""])[-1] in OFFLOADING_DECORATORS


def _on_event(index, decorator: ast.expr, scope: Func) -> bool:
    """``@x.on_event("startup")`` on an application or router ``x``."""
    return (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr == "on_event" and _event(decorator.args[0] if decorator.args else None)
            and _application(index.type_of(decorator.func.value, scope))
            and not _has_lifespan(decorator.func.value, scope))


def _registered(index) -> set[int]:
    """The functions handed to ``add_event_handler`` or listed in a constructor's ``on_startup``/``on_shutdown``."""
    found: set[int] = set()
    sites = index.infer.sites()
    for call, caller in sites.get("add_event_handler", []):
        if (isinstance(call.func, ast.Attribute) and len(call.args) >= 2 and _event(call.args[0])
                and _application(index.type_of(call.func.value, caller)) and not _has_lifespan(call.func.value, caller)):
            _note(index, found, call.args[1], caller)
    for name in {a.rpartition(".")[2] for a in APPLICATIONS}:
        for call, caller in sites.get(name, []):
            listed = [k.value for k in call.keywords if k.arg in CONSTRUCTOR_KEYWORDS]
            if listed and _application(index.callee(call.func, caller)) and not _lifespan_given(call):
                for handlers in listed:
                    for handler in handlers.elts if isinstance(handlers, (ast.List, ast.Tuple)) else []:
                        _note(index, found, handler, caller)
    return found


def _note(index, found: set[int], handler: ast.expr, scope: Func) -> None:
    target = index.callee(handler, scope)
    if isinstance(target, Func) and not target.is_async:
        found.add(id(target))


def _has_lifespan(receiver: ast.expr, scope: Func) -> bool:
    """The application ``receiver`` names is a global (or local) built with a ``lifespan=`` of its own."""
    if not isinstance(receiver, ast.Name):
        return False
    values = [n.value for n in scope.nodes if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == receiver.id for t in n.targets)]
    values += [v for v, _ in scope.module.global_values.get(receiver.id, [])]
    return any(isinstance(v, ast.Call) and _lifespan_given(v) for v in values)


def _lifespan_given(call: ast.Call) -> bool:
    return any(k.arg == "lifespan" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
               for k in call.keywords)


def _event(arg: ast.expr | None) -> bool:
    return isinstance(arg, ast.Constant) and arg.value in EVENTS


def _application(kind) -> bool:
    return isinstance(kind, str) and kind in APPLICATIONS
