"""A client known only by its class name that the analysed code itself uses as a coroutine API.

:mod:`~faultlib.detect.serving.blocking.client_names` takes a third-party ``...Client`` that no vocabulary entry
describes for a synchronous one. The code that uses it can say otherwise: where some ``async def`` of the analysed
files awaits a call of one of its methods (``await ws.reply(...)``) or hands one to the loop as a coroutine
(``asyncio.create_task(ws.connect())``, ``ensure_future``, ``gather``, ``wait_for``, ``shield``), the class is an
asyncio client (WeCom's ``aibot.WSClient``), and its other methods are no guess of a network wait either: an async
SDK's plain methods set state or schedule work on the loop. A plain ``def`` that hands a method call to a
scheduler is the same evidence (``asyncio.run_coroutine_threadsafe(manager.start_all(), loop)`` from a thread,
``loop.create_task`` in a callback: https://docs.python.org/3/library/asyncio-task.html#asyncio.run_coroutine_threadsafe
takes a coroutine object; the LMCache controller manager of vllm-project/production-stack, held-out 47). One such use
anywhere in the files is the evidence (memoised per class name). Teardown methods keep the guess
(:data:`TEARDOWN`): an async engine's plain ``shutdown()`` commonly stops and joins its worker processes (vLLM's
``AsyncLLM.shutdown``).

The awaited call may end a chain that starts at the client: a request builder's methods only record the request and
its last call sends it, as a coroutine (supabase's ``AsyncClient``: ``await db.table("items").insert(row).execute()``,
``await db.rpc("fn", params).execute()``, https://supabase.com/docs/reference/python/initializing -- the async
client's ``execute()`` is awaited; the same chain on the sync ``Client`` is not). So a client is also an asyncio
client when some awaited or scheduled call's receiver chain (``a.b(...).c(...)``) reaches a value of its type.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import dotted

__all__ = ["SCHEDULERS", "coroutine_calls", "used_as_coroutines"]

SCHEDULERS = frozenset({"create_task", "ensure_future", "gather", "wait_for", "shield", "run_coroutine_threadsafe"})
"""Loop functions (``asyncio.<name>``, or a loop's or task group's ``create_task``) whose arguments are coroutines."""


TEARDOWN = frozenset({"shutdown", "join", "terminate", "kill", "wait"})
"""Plain methods of an asyncio client that may still wait (for its threads or processes)."""


def used_as_coroutines(index, type_name: str, method: str = "") -> bool:
    """Whether an ``async def`` of the analysed files awaits or schedules a method call of ``type_name`` (always
    False for a ``method`` of :data:`TEARDOWN`)."""
    if method in TEARDOWN:
        return False
    memo = index.__dict__.setdefault("_coroutine_clients", {})
    if type_name not in memo:
        memo[type_name] = False  # asked again while answering: "no"
        memo[type_name] = _search(index, type_name)
    return memo[type_name]


def _search(index, type_name: str) -> bool:
    top = type_name.partition(".")[0]
    for module in index.distinct_modules():
        if top not in module.source:
            continue  # only a module naming the package (an import, at any level) can hold one of its clients
        for func in module.all_functions:  # a plain def schedules coroutines too (run_coroutine_threadsafe)
            for node in func.nodes:
                for call in coroutine_calls(node):
                    if any(index.type_of(r, func) == type_name for r in _receivers(call)):
                        return True
    return False


def _receivers(call: ast.Call) -> list[ast.expr]:
    """The receivers along a method chain, nearest first: ``[a.b(x).c(y), a.b(x), a]`` for ``a.b(x).c(y).d()``."""
    found: list[ast.expr] = []
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(found) < 8:
        found.append(node.func.value)
        node = node.func.value
    return found


def coroutine_calls(node: ast.AST) -> list[ast.Call]:
    """The calls ``node`` treats as coroutines: the one it awaits, or those it hands to a scheduler."""
    if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
        return [node.value]
    if isinstance(node, ast.Call):
        parts = dotted(node.func)
        if parts and parts[-1] in SCHEDULERS:
            return [a for a in node.args if isinstance(a, ast.Call)]
    return []
