"""An executor made for a ``with`` block of a coroutine: leaving the block waits for the work still running in it.

``with ThreadPoolExecutor() as pool:`` shuts the executor down when the block ends, "waiting as if
Executor.shutdown() were called with wait set to True"
(https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Executor.shutdown). In an
``async def`` that hands the pool work and awaits it under a time limit (``await asyncio.wait_for(
loop.run_in_executor(pool, scan, ...), timeout=...)``), the limit ends the wait but not the work: the ``with``
statement's exit then waits, on the loop, for the task to finish -- the request that timed out holds every other
request up for as long as the task still runs (held-out wave 70: a prompt-scanning service's 408 path). The block
is silent when every hand-over is awaited on its own with no limit (``await loop.run_in_executor(pool, f)``,
``await asyncio.wrap_future(pool.submit(f))``): each task is done before the block ends and the exit only joins
idle threads, the drained form of :mod:`~faultlib.detect.serving.blocking.drained_executors`. A block that hands
the pool nothing waits for nothing. Used by :func:`~faultlib.detect.serving.blocking.sites.named_site` for the
executors' constructors.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["EXECUTOR_CLASSES", "exit_waits"]

EXECUTOR_CLASSES = frozenset(f"concurrent.futures.{m}{c}" for m in ("", "thread.", "process.")
                             for c in ("ThreadPoolExecutor", "ProcessPoolExecutor"))
"""The standard executors (their module paths included), whose ``__exit__`` is ``shutdown(wait=True)``."""

HANDOVERS = frozenset({"run_in_executor"})
"""Loop methods that take the executor as their first argument."""


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
    uses = [n for stmt in block.body for n in ast.walk(stmt) if isinstance(n, ast.Call) and _hands_over(n, name)]
    if not uses or all(_awaited_alone(use, parents) for use in uses):
        return None
    return (f"{target}.__exit__ (the `with` block's end shuts the executor down with wait=True: work handed to it "
            "under a time limit or not awaited is still running there)")


def _hands_over(call: ast.Call, name: str) -> bool:
    """``loop.run_in_executor(name, ...)`` or ``name.submit(...)``/``name.map(...)``."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in HANDOVERS:
        return bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == name
    return func.attr in ("submit", "map") and isinstance(func.value, ast.Name) and func.value.id == name


def _awaited_alone(use: ast.Call, parents: dict) -> bool:
    """Whether the hand-over is the whole awaited value (``await loop.run_in_executor(pool, f)``), or a submitted
    future wrapped for the loop and awaited (``await asyncio.wrap_future(pool.submit(f))``)."""
    parent = parents.get(id(use))
    if isinstance(parent, ast.Call) and (dotted(parent.func) or [""])[-1] == "wrap_future" and parent.args \
            and parent.args[0] is use:
        parent = parents.get(id(parent))
    return isinstance(parent, ast.Await)
