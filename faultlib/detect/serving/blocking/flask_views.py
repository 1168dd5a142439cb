"""``async def`` views of a Flask app: Flask runs each one on an event loop of its own, in the request's thread.

Flask is a WSGI framework; it accepts a coroutine function as a view, error handler or ``before_request``/
``after_request`` function and runs it through ``Flask.ensure_sync``, which wraps it with asgiref's
``async_to_sync``: "When a request comes in to an async view, Flask will start an event loop in a thread, run the
view function there, then return the result. Each request still ties up one worker, even for async views"
(https://flask.palletsprojects.com/en/stable/async-await/#performance). No loop is shared between requests, so a
blocking call in such a view holds up that request's worker only -- the same as in a plain ``def`` view -- and is
not an event-loop stall. The view is an ``async def`` registered on a ``flask.Flask`` or ``flask.Blueprint``
instance (or an instance of a subclass of one in the analysed files) with a route decorator (``@app.route(...)``,
``@bp.get(...)``... :data:`ROUTE_DECORATORS`), or with ``add_url_rule(..., view_func=f)``. Quart, the asyncio
re-implementation of Flask's API (``quart.Quart``), runs its views on its one loop: not covered here. Used by
:func:`~faultlib.detect.serving.blocking.callers.loop_entry` (such a view is no entry) and
:mod:`~faultlib.detect.serving.blocking.private_loops` (what it awaits runs on that private loop).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["FLASK_APPS", "ROUTE_DECORATORS", "flask_async_view"]

FLASK_APPS = frozenset({"flask.Flask", "flask.app.Flask", "flask.Blueprint", "flask.blueprints.Blueprint"})
"""Flask's application and blueprint classes (their ``route`` and verb decorators register views)."""
ROUTE_DECORATORS = frozenset({"route", "get", "post", "put", "patch", "delete", "before_request", "after_request",
                              "teardown_request", "errorhandler", "before_app_request", "after_app_request",
                              "app_errorhandler"})
"""Decorators of a Flask app or blueprint that register the function they decorate
(https://flask.palletsprojects.com/en/stable/api/#flask.Flask.route and the sibling entries)."""


def flask_async_view(index, func: Func) -> bool:
    """``func`` is an ``async def`` that a Flask app or blueprint registers (see the module docstring)."""
    if not func.is_async:
        return False
    scope = func.parent or func
    for decorator in func.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr in ROUTE_DECORATORS and _flask_app(
                index, index.type_of(target.value, scope)):
            return True
    return id(func) in _added_rules(index)


def _flask_app(index, kind) -> bool:
    if isinstance(kind, str):
        return kind in FLASK_APPS
    return isinstance(kind, Klass) and bool(index.subclass_of(kind, FLASK_APPS.__contains__))


def _added_rules(index) -> frozenset[int]:
    """``id``s of the functions handed to a Flask app's ``add_url_rule(..., view_func=f)`` (once per index)."""
    found = index.__dict__.get("_faultlib_flask_rules")
    if found is None:
        found = set()
        for call, caller in index.infer.sites().get("add_url_rule", []):
            view = next((k.value for k in call.keywords if k.arg == "view_func"), None)
            if view is None and len(call.args) > 2:
                view = call.args[2]
            if (view is None or not isinstance(call.func, ast.Attribute)
                    or not _flask_app(index, index.type_of(call.func.value, caller))):
                continue
            handed = index.callee(view, caller)
            if isinstance(handed, Func):
                found.add(id(handed))
        found = index.__dict__["_faultlib_flask_rules"] = frozenset(found)
    return found
