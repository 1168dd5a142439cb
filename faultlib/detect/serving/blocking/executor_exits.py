"""An executor made for a ``with`` block of a coroutine: leaving the block waits for the work a time limit gave up on.

``with ThreadPoolExecutor() as pool:`` shuts the executor down when the block ends, "waiting as if
Executor.shutdown() were called with wait set to True"
(https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Executor.shutdown). In an
``async def`` that hands the pool work and awaits it under a time limit (``await asyncio.wait_for(
loop.run_in_executor(pool, scan, ...), timeout=...)``, or ``asyncio.wrap_future(pool.submit(...))`` in the same
place, or the future a ``submit`` stored), the limit ends the wait but not the work
(https://docs.python.org/3/library/asyncio-task.html#asyncio.wait_for: the future is cancelled, and a task already
running in a thread cannot be): the ``with`` statement's exit then
waits, on the loop, for the task to finish -- the request that timed out holds every other request up for as long
as the task still runs (held-out wave 70: a prompt-scanning service's 408 path). Work awaited with no limit, or
waited for in full in the block (``list(pool.map(f, xs))``: that wait is the blocker, found on its own line; then
every task is done), leaves the exit nothing to wait for, the drained form of
:mod:`~faultlib.detect.serving.blocking.drained_executors`. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the executors' constructors.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.drained_executors import sends_work
from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["EXECUTOR_CLASSES", "exit_waits"]

EXECUTOR_CLASSES = frozenset(f"concurrent.futures.{m}{c}" for m in ("", "thread.", "process.")
                             for c in ("ThreadPoolExecutor", "ProcessPoolExecutor"))
"""The standard executors (their module paths included), whose ``__exit__`` is ``shutdown(wait=True)``."""

HANDED = frozenset({"submit"})
"""The executor's own method that hands it one task whose future a time limit may give up on (the loop's
``run_in_executor(pool, ...)`` is the other hand-over, :func:`~faultlib.detect.serving.blocking.drained_executors.
sends_work`)."""


def exit_waits(target: str, call: ast.Call, func: Func) -> str | None:
    """What the exit of the ``with`` block that ``call`` (an executor's constructor, ``target``) opens in the
    coroutine ``func`` waits for, when some work handed to it is awaited under a limit or not awaited; else None."""
    if target not in EXECUTOR_CLASSES or not func.is_async:
        return None
    for node in nodes_of(func, ast.With):
        for item in node.items:
            if item.context_expr is call and isinstance(item.optional_vars, ast.Name):
                return _waits(node, item.optional_vars.id, target)
    return None


def _waits(block: ast.With, name: str, target: str) -> str | None:
    parents = {id(child): parent for stmt in block.body for parent in ast.walk(stmt)
               for child in ast.iter_child_nodes(parent)}
    uses = [n for stmt in block.body for n in ast.walk(stmt)
            if isinstance(n, ast.Call) and sends_work(n, name, methods=HANDED)]
    kept = {t.id for use in uses if isinstance(assign := parents.get(id(use)), ast.Assign)
            for t in assign.targets if isinstance(t, ast.Name)}  # future = pool.submit(f); wait_for(wrap(future))
    uses += [n for stmt in block.body for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in kept
             and isinstance(n.ctx, ast.Load)]
    if not any(_timed(use, parents) for use in uses):
        return None
    return (f"{target}.__exit__ (the `with` block's end shuts the executor down with wait=True: a task awaited "
            "under a time limit may still be running there)")


def _timed(use: ast.expr, parents: dict) -> bool:
    """Whether the hand-over (or the future it made) is inside the awaitable of an ``asyncio.wait_for`` given a
    time limit."""
    node = parents.get(id(use))
    while node is not None and not isinstance(node, ast.stmt):
        if isinstance(node, ast.Call) and (dotted(node.func) or [""])[-1] == "wait_for" and _limit(node):
            return True
        node = parents.get(id(node))
    return False


def _limit(call: ast.Call) -> bool:
    """``wait_for(aw, timeout)`` with a timeout that is not the constant None."""
    timeout = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "timeout"),
                                                            None)
    return timeout is not None and not (isinstance(timeout, ast.Constant) and timeout.value is None)
