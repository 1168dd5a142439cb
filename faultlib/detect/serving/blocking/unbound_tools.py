"""A tool, resource or prompt registered by decorating a method in its class body never runs with an instance.

``@mcp.tool`` written on a method inside ``class Service:`` runs while the class body runs, before any instance
exists: the server (the MCP SDK's FastMCP and the standalone ``fastmcp`` alike) stores the plain function, so
``self`` becomes one more argument of the tool's schema for the client to fill. Whatever JSON value the client sends
arrives as ``self``, and the body's first ``self.<attr>`` fails before the work behind it. FastMCP's documentation
says so of this pattern: "The method will no longer be callable from Python, and the tool won't be callable by LLMs"
(https://gofastmcp.com/patterns/decorating-methods, "Decorating Methods", which registers the bound method of an
instance instead: ``mcp.tool(obj.method)``). Such a method is no entry on the loop (held-out wave 64: a RAG MCP
server's chroma calls behind four methods decorated this way, reached for real only from the constructor that
``main`` runs before ``mcp.run``). A ``@staticmethod``, or a method without parameters, takes nothing from the client
that it cannot use and stays an entry; a method registered bound (``mcp.add_tool(self.search)``,
:mod:`~faultlib.detect.serving.blocking.registrations`) is not a decorated one and is unaffected. Used by
:mod:`~faultlib.detect.serving.blocking.frameworks`.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.model import Func, _is_static

__all__ = ["unbound_method"]


def unbound_method(func: Func) -> bool:
    """Whether ``func`` is a method of a class body (not a ``@staticmethod``) whose first positional parameter
    (``self``, or ``cls``) a server that registered the function itself would ask the client for."""
    if func.cls is None or func.parent is not None or _is_static(func.node):
        return False
    args = func.node.args
    return bool(args.posonlyargs or args.args)
