"""Handlers registered by a call rather than a decorator: ``server.add_tool(self.search_hosts, name=...)``.

The MCP SDK's FastMCP (v1.x) ``add_tool(fn, name=None, ...)`` is what its ``@server.tool()`` decorator calls
(``mcp/server/fastmcp/server.py``: ``FastMCP.tool`` returns a decorator that runs ``self.add_tool(fn, ...)``), so a
plain ``def`` passed to it is called inside the request's coroutine just the same
(:mod:`~faultlib.detect.serving.blocking.frameworks`). The handler is any expression the analysis resolves to a
function of the analysed files: a name, a method of an instance (``self.list_modules``). A function of the
analysed files that hands one of its parameters to ``add_tool`` (``def _add_tool(self, server, method, name):
server.add_tool(method, name=name)``) registers whatever each of its callers passes in that place; one such
forwarding step is followed. Whether the receiver is a server that runs sync handlers inline is the caller's test
(``inline(call, func)``). Used by :mod:`~faultlib.detect.serving.blocking.frameworks`.
"""

from __future__ import annotations

import ast
from typing import Callable

from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.nio_callbacks import NIO_REGISTRARS

__all__ = ["REGISTER_CALLS", "registered_by_call"]

REGISTER_CALLS = frozenset({"add_tool"}) | NIO_REGISTRARS
"""Server methods that take the handler function as their first argument (``fn``): FastMCP's ``add_tool``
(``add_resource`` and ``add_prompt`` take built ``Resource``/``Prompt`` objects, not functions), and matrix-nio's
callback registrations (:mod:`~faultlib.detect.serving.blocking.nio_callbacks`)."""


TOOL_BUILDERS = frozenset({"from_function"})
"""Constructors of a tool object from a function: fastmcp 2.x's ``add_tool`` takes a ``Tool``, built with
``Tool.from_function(fn, ...)`` (https://gofastmcp.com/servers/tools: "``Tool.from_function(fn)`` ... then
``mcp.add_tool(tool)``"), which calls ``fn`` when the tool runs: the function is registered all the same."""


def registered_by_call(index, func: Func, inline: Callable[[ast.Call, Func], bool]) -> bool:
    """Whether ``func`` is passed to a registering call whose receiver ``inline`` accepts (see the module
    docstring); the answer for every function is computed once per index."""
    memo = index.__dict__.get("_faultlib_registered_by_call")
    if memo is None:
        memo = index.__dict__["_faultlib_registered_by_call"] = _registered(index, inline)
    return id(func) in memo


def _registered(index, inline) -> set[int]:
    found: set[int] = set()
    forwarders: list[tuple[Func, int]] = []
    sites = index.infer.sites()
    for name in REGISTER_CALLS:
        for call, caller in sites.get(name, []):
            handler = _handler(call)
            if handler is None or not isinstance(call.func, ast.Attribute) or not inline(call, caller):
                continue
            position = _parameter(caller, handler)
            if position is not None:  # def _add_tool(self, server, method): server.add_tool(method)
                forwarders.append((caller, position))
            else:
                _note(index, found, handler, caller)
    for helper, position in forwarders:
        for call, caller in sites.get(helper.node.name, []):
            if index.callee(call.func, caller) is helper:
                given = _argument(call, helper, position)
                if given is not None:
                    _note(index, found, given, caller)
    return found


def _handler(call: ast.Call) -> ast.expr | None:
    """The function a registering call is given: its first argument or ``fn=``; through a tool built from it
    (``add_tool(Tool.from_function(fn))``, :data:`TOOL_BUILDERS`)."""
    given = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else next(
        (k.value for k in call.keywords if k.arg in ("fn", "tool")), None)
    if isinstance(given, ast.Call) and isinstance(given.func, ast.Attribute) and given.func.attr in TOOL_BUILDERS:
        return _handler(given)
    return given


def _parameters(func: Func) -> list[str]:
    args = func.node.args
    return [a.arg for a in (*args.posonlyargs, *args.args)]


def _parameter(func: Func, expr: ast.expr) -> int | None:
    """The position of the parameter of ``func`` that ``expr`` names, when it names one (and is never rebound)."""
    if not isinstance(expr, ast.Name) or expr.id not in _parameters(func):
        return None
    rebound = any(isinstance(n, ast.Name) and n.id == expr.id and isinstance(n.ctx, ast.Store) for n in func.nodes)
    return None if rebound else _parameters(func).index(expr.id)


def _argument(call: ast.Call, helper: Func, position: int) -> ast.expr | None:
    """What ``call`` passes to the parameter at ``position`` of ``helper`` (a method called through an instance
    or ``self`` does not pass its first parameter)."""
    names = _parameters(helper)
    bound = helper.cls is not None and isinstance(call.func, ast.Attribute) and not any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in helper.node.decorator_list)
    index = position - 1 if bound else position
    if 0 <= index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == names[position]), None)


def _note(index, found: set[int], expr: ast.expr, caller: Func) -> None:
    target = index.callee(expr, caller)
    if isinstance(target, Func):
        found.add(id(target))
