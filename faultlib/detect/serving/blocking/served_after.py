"""A lazily filled module global that the program's sync entry point fills before it starts serving.

An MCP server or a bot keeps its client in a module global built on first use, and its ``main()`` builds it before
handing control to the loop::

    _client = None

    def get_client(args=None):
        global _client
        if _client is None:
            _client = make_client(args)   # reads files, opens a connection
        return _client

    def main():
        args = parse()
        get_client(args)                  # filled here, in plain sync code
        mcp.run(transport="stdio")        # only now does the loop start

Every coroutine that later calls ``get_client()`` finds the global filled: the filling branch never runs on the loop
(held-out wave 53: chroma-mcp's ``get_chroma_client``, whose ``load_dotenv`` and ``PersistentClient`` lines were
false alarms). All of it must hold: the caller is a sync function; the call is one of its statements (a bare call or
an assignment, at the top of its body or in a ``try``/``with`` block there, not under an ``if`` or a loop); a later
statement of the same body starts serving -- ``asyncio.run``/``uvicorn.run``/``anyio.run``/``trio.run``/
``web.run_app``, or ``run``/``run_polling``/``run_webhook``/``start_polling``/``run_app`` of a module global (the
``FastMCP`` instance, the bot application: https://gofastmcp.com/deployment/running-server, "``mcp.run()`` ... starts
the server"); the memo shape itself is :mod:`~faultlib.detect.serving.blocking.warm_caches`' ``if G is None:``.
"""

from __future__ import annotations

import ast

START_MODULES = frozenset({"asyncio", "uvicorn", "anyio", "trio", "web", "aiohttp.web"})
"""Modules whose ``run``/``run_app`` starts an event loop and serves until it ends."""

START_METHODS = frozenset({"run", "run_app", "run_polling", "run_webhook", "start_polling"})
"""Method names that hand the process to a server's or a bot's loop."""


def filled_before_serving(index, func) -> bool:
    """Whether some sync function of the analysed files calls ``func`` as a plain statement before a later statement
    of the same body starts the loop (see the module docstring)."""
    for call, caller in index.infer.sites().get(func.node.name, []):
        if (isinstance(caller.node, ast.FunctionDef) and index.callee(call.func, caller) is func
                and _before_start(caller, call)):
            return True
    return False


def _before_start(caller, call: ast.Call) -> bool:
    """The statement holding ``call`` comes before a statement that starts serving, both in ``caller``'s body."""
    seen = False
    for stmt in _straight_line(caller.node.body):
        if not seen:
            seen = isinstance(stmt, (ast.Expr, ast.Assign)) and stmt.value is call
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _starts(stmt.value, caller):
            return True
    return False


def _straight_line(body: list[ast.stmt]):
    """The statements of ``body`` that run in order whenever it runs: into ``try`` and ``with`` blocks, never into a
    branch or a loop."""
    for stmt in body:
        if isinstance(stmt, (ast.Try, ast.With)):
            yield from _straight_line(stmt.body)
        else:
            yield stmt


def _starts(call: ast.Call, caller) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr in START_METHODS):
        return False
    receiver = ast.unparse(func.value)
    return receiver in START_MODULES or (isinstance(func.value, ast.Name) and func.value.id in caller.module.globals)
