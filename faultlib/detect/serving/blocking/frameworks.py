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

Not entries: the standalone ``fastmcp`` package (``from fastmcp import FastMCP``) runs a sync tool in a thread pool
(https://github.com/PrefectHQ/fastmcp/pull/2865) unless it is registered with ``run_in_thread=False``, which is
then an entry too; FastAPI/Starlette run a plain ``def`` endpoint in their thread pool
(https://fastapi.tiangolo.com/async/#path-operation-functions). Used by
:mod:`~faultlib.detect.serving.blocking.callers`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted
from faultlib.detect.serving.blocking.registrations import registered_by_call

__all__ = ["INLINE_DECORATORS", "INLINE_SERVERS", "REGISTRARS", "runs_inline"]

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
                              | {f"chainlit.callbacks.{name}" for name in _CHAINLIT})
"""Module-level decorators (or decorator factories: ``@cl.action_callback("run")``) whose framework calls the
plain ``def`` they register directly on the loop (Chainlit 2.x, ``backend/chainlit/callbacks.py``: every one of
these wraps the function with ``wrap_user_function``)."""


def runs_inline(index, func: Func) -> bool:
    """Whether the plain ``def`` ``func`` is registered as a handler its server calls on the event loop (see the
    module docstring)."""
    if func.is_async:
        return False
    return any(_inline_registrar(index, d, func) or _inline_decorator(index, d, func)
               for d in func.node.decorator_list) or registered_by_call(
        index, func, lambda call, caller: _inline_server(index, call, call.func.value, caller))


def _inline_decorator(index, decorator: ast.expr, func: Func) -> bool:
    """``decorator`` (or the factory it calls) is one of :data:`INLINE_DECORATORS`."""
    parts = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    return bool(parts) and index.resolve_parts(parts, func.module, func.parent) in INLINE_DECORATORS


def _inline_registrar(index, decorator: ast.expr, func: Func) -> bool:
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call is not None else decorator
    if not (isinstance(target, ast.Attribute) and target.attr in REGISTRARS):
        return False
    return _inline_server(index, call, target.value, func.parent or func)


def _inline_server(index, call: ast.Call | None, receiver: ast.expr, scope: Func) -> bool:
    """Whether ``receiver`` (evaluated in ``scope``) is a server that calls the sync handler ``call`` registers on
    the loop: an SDK FastMCP, or a standalone ``fastmcp`` one told ``run_in_thread=False``."""
    server = _server(index, index.type_of(receiver, scope))
    if server in INLINE_SERVERS:
        return True
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
