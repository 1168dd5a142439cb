"""A wait on a ``threading.Event`` that cannot wait where it runs: the event is already set, or only the loop's own
thread sets it.

``Event.wait()`` "block[s] until the internal flag is true. If the internal flag is true on entry, return immediately"
(https://docs.python.org/3/library/threading.html#threading.Event.wait). Two shapes make the flag true on entry, or
the wait unreachable, on the loop:

* set before: ``ev.set()`` is a statement before the wait in the same block or in a block around it, with no
  ``ev.clear()`` between (the same receiver, written the same way);
* a single flight run only on the loop's thread (held-out wave 61: an MCP server's credential validation shared
  between concurrent requests): a sync function registers an in-flight entry for a key, runs the work, and sets
  ``entry.event`` when done, while a caller that finds the key pending waits on ``entry.event``. A sync function
  runs to its end without letting another coroutine in, so when every caller of the function is on the loop's
  thread, the owner registers, runs and clears the entry before any other caller can look -- a pending entry is never
  found, and the wait is never reached. It must be that function that sets the event (``entry.event.set()`` with the
  wait's receiver, an attribute of a local), no other function of the analysed files sets an event of that attribute
  name, and every reference to the function in the analysed files is a direct call from an ``async def`` or from a
  sync function that is itself only called so (a reference passed as a value -- to a thread, an executor, a lambda --
  or a call the analysis cannot resolve leaves the wait a wait).

A ``wait(0)`` or ``wait(timeout=0)`` is a poll (:func:`~faultlib.detect.serving.blocking.shapes.is_poll`). Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the ``wait`` of a ``threading.Event``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["settled_wait"]

MAX_DEPTH = 6  # sync callers followed up from the function that waits


def settled_wait(index, call: ast.Call, func: Func) -> bool:
    """``call`` is ``ev.wait(...)`` that cannot wait on the loop (see the module)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "wait"):
        return False
    receiver = dotted(call.func.value)
    if not receiver:
        return False
    return _set_before(call, func, receiver) or _single_flight(index, func, receiver)


def _calls_on(node: ast.AST, receiver: list[str], method: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
            and dotted(node.func.value) == receiver)


def _set_before(call: ast.Call, func: Func, receiver: list[str]) -> bool:
    """An ``ev.set()`` statement comes before the statement holding the wait, in its block or one around it, with no
    ``ev.clear()`` anywhere in the function."""
    if any(_calls_on(n, receiver, "clear") for n in nodes_of(func, ast.Call)):
        return False
    return any(isinstance(s, ast.Expr) and _calls_on(s.value, receiver, "set")
               for block, at in _blocks_to(func.node.body, call) for s in block[:at])


BLOCKS = ("body", "orelse", "finalbody", "handlers")


def _blocks_to(stmts: list, target: ast.AST) -> list[tuple[list, int]]:
    """The statement lists from ``stmts`` down to the one holding ``target``, each with the position of the statement
    that holds it (empty when ``target`` is not there, or inside a nested function or class)."""
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not any(n is target for n in ast.walk(stmt)):
            continue
        for field in BLOCKS:
            inner = getattr(stmt, field, None)
            path = _blocks_to(inner, target) if isinstance(inner, list) else []
            if path:
                return [(stmts, i), *path]
        return [(stmts, i)]
    return []


def _single_flight(index, func: Func, receiver: list[str]) -> bool:
    if func.is_async or len(receiver) != 2 or receiver[0] in ("self", "cls"):
        return False
    if not any(_calls_on(n, receiver, "set") for n in nodes_of(func, ast.Call)):
        return False  # the function that waits is not the one that finishes the work
    attr = receiver[1]
    for module in index.distinct_modules():
        for other in module.all_functions:
            if other is not func and any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "set"
                    and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == attr
                    for n in nodes_of(other, ast.Call)):
                return False  # some other function sets such an event: it may be another thread's
    memo = func.__dict__.get("_faultlib_only_on_loop")
    if memo is None:
        memo = func.__dict__["_faultlib_only_on_loop"] = _only_on_loop(index, func, set())
    return memo


def _only_on_loop(index, func: Func, seen: set[int]) -> bool:
    """Every reference to ``func`` in the analysed files is a call made from an ``async def``, or from a sync function
    that is itself only so called (:data:`MAX_DEPTH` levels up)."""
    if id(func) in seen or len(seen) > MAX_DEPTH:
        return False
    seen = seen | {id(func)}
    name = func.node.name
    found = False
    for module in index.distinct_modules():
        owners = {id(n): f for f in module.all_functions for n in f.nodes}
        for node in ast.walk(module.tree):
            named = (isinstance(node, ast.Name) and node.id == name) or (
                isinstance(node, ast.Attribute) and node.attr == name)
            if not named or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            caller = owners.get(id(node))
            call = _called(caller, node) if caller is not None else None
            if call is None or index.callee(call.func, caller) is not func:
                return False  # a value handed on, a reference outside a function body, another function's namesake
            if not caller.is_async and not _only_on_loop(index, caller, seen):
                return False
            found = True
    return found


def _called(func: Func, node: ast.AST) -> ast.Call | None:
    """The call of ``func``'s body whose callee expression is ``node``."""
    return next((c for c in nodes_of(func, ast.Call) if c.func is node), None)
