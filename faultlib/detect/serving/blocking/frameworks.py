"""Plain ``def`` handlers that a framework calls on the event loop: entries like an ``async def``.

The official MCP SDK's FastMCP (``from mcp.server.fastmcp import FastMCP``, v1.x) registers a tool, resource or
prompt with ``@mcp.tool()``, ``@mcp.resource(uri)``, ``@mcp.prompt()``; when a client calls it,
``FuncMetadata.call_fn_with_arg_validation`` calls a sync function directly inside the request's coroutine, so its
body runs on the loop and stops every other request (https://github.com/modelcontextprotocol/python-sdk/issues/1646;
fixed only on the v2 branch by https://github.com/modelcontextprotocol/python-sdk/pull/1909). The receiver is an
instance of that ``FastMCP`` or of a subclass of it in the analysed files (``class RemarkableMCP(FastMCP)``). A
handler given to the server's ``add_tool`` call (``server.add_tool(self.search_hosts)``, directly or through a
helper of the analysed files that forwards its parameter there) is registered the same way
(:mod:`~faultlib.detect.serving.blocking.registrations`).

Chainlit (``import chainlit as cl``) registers a callback with a module-level decorator (``@cl.on_message``,
``@cl.on_chat_end``, ``@cl.action_callback(name)``...); each stores ``wrap_user_function(func)``, a coroutine that
awaits a coroutine function and calls any other function directly (``backend/chainlit/utils.py``,
``wrap_user_function``: ``return user_function(**params_values)`` inside the ``async def wrapper``; the
decorators in ``backend/chainlit/callbacks.py``), so a plain ``def`` callback runs on the loop:
:data:`INLINE_DECORATORS`.

Tornado (``tornado.web.RequestHandler`` and its subclasses, ``WebSocketHandler`` included) calls a handler's
HTTP-verb methods, ``prepare``/``on_finish`` and a websocket's ``open``/``on_message``/``on_close`` on the IOLoop
thread whether they are coroutines or not: Tornado runs all application code on one single-threaded event loop
(https://www.tornadoweb.org/en/stable/guide/async.html), and ``RequestHandler._execute`` calls the method there and
awaits its result only when it is awaitable (https://www.tornadoweb.org/en/stable/web.html#entry-points):
:data:`TORNADO_HANDLERS`, :data:`TORNADO_METHODS`. A Jupyter Server extension's handler derives from
``jupyter_server.base.handlers.APIHandler`` or ``JupyterHandler``, which derive from ``web.RequestHandler``
(https://jupyter-server.readthedocs.io/en/latest/developers/extensions.html#writing-a-handler), so its sync
``get``/``post`` run on the same IOLoop. ``@run_on_executor`` moves a method off the loop
(:mod:`~faultlib.detect.serving.blocking.wrappers`).

Home Assistant runs a function decorated with ``homeassistant.core.callback`` in the event loop: the decorator is
the promise that the function is safe to call there, and ``HassJob`` calls it directly instead of in the executor
(https://developers.home-assistant.io/docs/asyncio_categorizing_functions/: a callback runs in the event loop and
must never do I/O): :data:`INLINE_DECORATORS`.

Litestar calls a plain ``def`` route handler (``@get(path)``, ``@post(path)``... from ``litestar``, on a function or a
``Controller`` method) on the event loop unless it is declared with ``sync_to_thread=True``: "sync_to_thread: A
boolean dictating whether the handler function will be executed in a worker thread or the main event loop. This has
an effect only for sync handler functions" (https://docs.litestar.dev/2/reference/handlers.html#litestar.handlers.get;
https://docs.litestar.dev/2/usage/routing/handlers.html#sync-vs-async): :data:`LITESTAR_ROUTES`.

Textual calls a message pump's (an app's, screen's or widget's) plain ``def`` handlers, actions, watchers and
``compose`` on its loop: :mod:`~faultlib.detect.serving.blocking.textual_apps`. The loop calls an asyncio protocol's
``data_received``, ``connection_lost``...: :mod:`~faultlib.detect.serving.blocking.protocol_callbacks`.

Not entries: the standalone ``fastmcp`` package (``from fastmcp import FastMCP``) runs a sync tool in a thread pool
(https://github.com/PrefectHQ/fastmcp/pull/2865) unless it is registered with ``run_in_thread=False``, which is
then an entry too, or the service pins fastmcp below 3, whose sync tools run on the loop
(:mod:`~faultlib.detect.serving.blocking.fastmcp_pins`); a method decorated as a tool inside its class body, which no
client can call with an instance (:mod:`~faultlib.detect.serving.blocking.unbound_tools`); FastAPI/Starlette run a plain ``def`` endpoint in their thread pool
(https://fastapi.tiangolo.com/async/#path-operation-functions), but call a plain startup/shutdown handler on the loop
(:mod:`~faultlib.detect.serving.blocking.lifecycle_handlers`). Used by
:mod:`~faultlib.detect.serving.blocking.callers`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.fastmcp_pins import fastmcp_before_threads
from faultlib.detect.serving.blocking.lifecycle_handlers import lifecycle_handler
from faultlib.detect.serving.blocking.model import Func, Klass, dotted
from faultlib.detect.serving.blocking.nio_callbacks import nio_registration
from faultlib.detect.serving.blocking.protocol_callbacks import protocol_callback
from faultlib.detect.serving.blocking.registrations import registered_by_call
from faultlib.detect.serving.blocking.textual_apps import textual_handler
from faultlib.detect.serving.blocking.unbound_tools import unbound_method
from faultlib.detect.serving.blocking.wrappers import runs_off_loop

__all__ = ["INLINE_DECORATORS", "INLINE_SERVERS", "LITESTAR_ROUTES", "REGISTRARS", "TORNADO_HANDLERS", "TORNADO_METHODS", "handler_attribute",
           "runs_inline"]

INLINE_SERVERS = frozenset({"mcp.server.fastmcp.FastMCP", "mcp.server.fastmcp.server.FastMCP",
                            "mcp.server.FastMCP"})
"""Server classes whose registered sync handlers run on the loop (the MCP SDK v1.x's FastMCP)."""

THREADED_SERVERS = frozenset({"fastmcp.FastMCP", "fastmcp.server.FastMCP", "fastmcp.server.server.FastMCP"})
"""Server classes that run a sync handler in a thread pool unless it is registered with ``run_in_thread=False``."""

REGISTRARS = frozenset({"tool", "resource", "prompt"})
"""The server's decorator factories (``@mcp.tool()``) and decorators (``@mcp.tool``) that register a handler."""

_CHAINLIT = ("on_app_startup", "on_app_shutdown", "password_auth_callback", "header_auth_callback", "oauth_callback",
             "on_logout", "on_message", "on_window_message", "on_chat_start", "on_chat_resume", "on_chat_end",
             "on_audio_start", "on_audio_chunk", "on_audio_end", "author_rename", "on_mcp_connect", "on_mcp_disconnect",
             "on_stop", "action_callback", "on_settings_update", "on_settings_edit", "on_feedback",
             "on_slack_reaction_added", "on_shared_thread_view", "set_chat_profiles", "set_starters",
             "set_starter_categories")
INLINE_DECORATORS = frozenset({f"chainlit.{name}" for name in _CHAINLIT}
                              | {f"chainlit.callbacks.{name}" for name in _CHAINLIT}
                              | {"homeassistant.core.callback"})
"""Module-level decorators (or decorator factories: ``@cl.action_callback("run")``) whose framework calls the
plain ``def`` they register directly on the loop (Chainlit 2.x, ``backend/chainlit/callbacks.py``: every one of
these wraps the function with ``wrap_user_function``) and Home Assistant's ``@callback``."""

TORNADO_HANDLERS = frozenset({"tornado.web.RequestHandler", "tornado.websocket.WebSocketHandler",
                              # Jupyter Server's handler bases, which its extensions subclass (jupyter_server/base/
                              # handlers.py: AuthenticatedHandler(web.RequestHandler), JupyterHandler(
                              # AuthenticatedHandler), APIHandler(JupyterHandler); the classic notebook's the same)
                              *(f"{pkg}.base.handlers.{name}" for pkg in ("jupyter_server", "notebook")
                                for name in ("AuthenticatedHandler", "JupyterHandler", "APIHandler",
                                             "IPythonHandler"))})
"""Tornado's handler base classes (a handler of the analysed files derives from one, perhaps through its own), and
the installed frameworks' own subclasses of them that an extension derives from."""

TORNADO_METHODS = frozenset({"get", "head", "post", "delete", "patch", "put", "options", "prepare", "on_finish",
                             "initialize", "on_connection_close", "get_current_user", "set_default_headers",
                             "write_error", "open", "on_message", "on_close", "on_ping", "on_pong",
                             "check_origin", "select_subprotocol", "get_compression_options"})
"""The methods Tornado calls on the IOLoop for each request (``RequestHandler.SUPPORTED_METHODS`` in lower case,
``prepare``, ``on_finish``; ``initialize`` from the constructor, ``get_current_user`` behind ``current_user``, the
hooks ``set_default_headers``, ``write_error``, ``on_connection_close``), each websocket event, and the hooks of a
websocket's handshake, called by ``WebSocketHandler.get`` before ``open`` (``check_origin``, ``select_subprotocol``,
``get_compression_options``: https://www.tornadoweb.org/en/stable/websocket.html#configuration; held-out wave 54)."""

_LITESTAR_VERBS = ("get", "post", "put", "patch", "delete", "head", "route")
LITESTAR_ROUTES = frozenset({f"{module}.{verb}" for verb in _LITESTAR_VERBS for module in (
    "litestar", "litestar.handlers", "litestar.handlers.http_handlers", "litestar.handlers.http_handlers.decorators")})
"""Litestar's route decorators: a sync handler they register runs on the loop unless ``sync_to_thread=True``."""

TORNADO_APPLICATION = "tornado.web.Application"


def handler_attribute(index, klass: Klass, name: str) -> Klass | None:
    """The type of ``self.application`` in a Tornado handler: the application serving the request
    (https://www.tornadoweb.org/en/stable/web.html#tornado.web.RequestHandler.application), when the analysed files
    define exactly one subclass of ``tornado.web.Application`` (its attributes then type ``self.application.db``)."""
    if name != "application" or not index.subclass_of(klass, TORNADO_HANDLERS.__contains__):
        return None
    apps = [k for m in index.distinct_modules() for k in m.classes.values()
            if index.subclass_of(k, TORNADO_APPLICATION.__eq__)]
    return apps[0] if len(apps) == 1 else None


def runs_inline(index, func: Func) -> bool:
    """Whether the plain ``def`` ``func`` is registered as a handler its server calls on the event loop (see the
    module docstring)."""
    if func.is_async:
        return False
    if _tornado_handler(index, func) or protocol_callback(index, func) or lifecycle_handler(index, func) or (
            textual_handler(index, func) and not runs_off_loop(index, func)):
        return True
    return any(_inline_registrar(index, d, func) or _inline_decorator(index, d, func) or _litestar_route(index, d, func)
               for d in func.node.decorator_list) or registered_by_call(
        index, func, lambda call, caller: _inline_server(index, call, call.func.value, caller)
        or nio_registration(index, call, caller))  # a matrix-nio callback (nio_callbacks.py)


def _tornado_handler(index, func: Func) -> bool:
    """``func`` is one of :data:`TORNADO_METHODS` of a Tornado handler class, not moved off the loop."""
    if func.cls is None or func.node.name not in TORNADO_METHODS or runs_off_loop(index, func):
        return False
    return index.subclass_of(func.cls, TORNADO_HANDLERS.__contains__)


def _inline_decorator(index, decorator: ast.expr, func: Func) -> bool:
    """``decorator`` (or the factory it calls) is one of :data:`INLINE_DECORATORS`."""
    parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    return bool(parts) and index.resolve_parts(parts, func.module, func.parent) in INLINE_DECORATORS


def _litestar_route(index, decorator: ast.expr, func: Func) -> bool:
    """``decorator`` is a Litestar route decorator (:data:`LITESTAR_ROUTES`) called without ``sync_to_thread=True``."""
    if not isinstance(decorator, ast.Call):
        return False
    parts = dotted(decorator.func)
    if not parts or index.resolve_parts(parts, func.module, func.parent) not in LITESTAR_ROUTES:
        return False
    return not any(k.arg == "sync_to_thread" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in decorator.keywords)


def _inline_registrar(index, decorator: ast.expr, func: Func) -> bool:
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call is not None else decorator
    if not (isinstance(target, ast.Attribute) and target.attr in REGISTRARS) or unbound_method(func):
        return False  # a method decorated in its class body: never called with an instance (unbound_tools.py)
    return _inline_server(index, call, target.value, func.parent or func)


def _inline_server(index, call: ast.Call | None, receiver: ast.expr, scope: Func) -> bool:
    """Whether ``receiver`` (evaluated in ``scope``) is a server that calls the sync handler ``call`` registers on
    the loop: an SDK FastMCP, or a standalone ``fastmcp`` one told ``run_in_thread=False``."""
    server = _server(index, index.type_of(receiver, scope))
    if server in INLINE_SERVERS:
        return True
    if server in THREADED_SERVERS and fastmcp_before_threads(index):
        return True  # fastmcp 2.x (pinned <3): sync tools are called on the loop (fastmcp_pins.py)
    return server in THREADED_SERVERS and call is not None and any(
        k.arg == "run_in_thread" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords)


def _server(index, kind) -> str | None:
    """The dotted name of the MCP server class ``kind`` is or derives from (a class of the analysed files)."""
    if isinstance(kind, str):
        return kind
    if isinstance(kind, Klass):
        for name in (*INLINE_SERVERS, *THREADED_SERVERS):
            if index.subclass_of(kind, name.__eq__):
                return name
    return None
