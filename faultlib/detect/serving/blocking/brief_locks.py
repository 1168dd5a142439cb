"""A lock's ``acquire()`` on the loop when every holder of that lock keeps it only for a few cheap statements.

``check blocking`` reports ``lock.acquire()`` (:mod:`~faultlib.detect.serving.blocking.libraries.waits`) because the
loop waits there for as long as another thread holds the lock, and it leaves ``with lock:`` out because a short
critical section is the common use. An explicit ``acquire()`` ... ``release()`` pair around such a section is the same
thing spelt by hand: a thread that sets a field under the lock keeps it for microseconds
(https://docs.python.org/3/library/threading.html#threading.Lock.acquire: "block until the lock is unlocked"), far
below the 50 ms long-task threshold of :class:`~faultlib.detect.serving.loop_watchdog.LoopWatchdog`. So the call is
silent when every span of the analysed files that holds the same lock runs only assignments, tests, ``return``/
``break`` and a few cheap calls: the lock's own ``release``, a logger's methods, the clock (``time.time``/
``monotonic``/``perf_counter``) and small built-ins (``len``, ``str``, ``min`` ...). A span is the statements after an
``acquire()`` of the lock up to the next ``release()`` of it in the same block (the ``if`` branches between them
whole), or the body of a ``with`` on it; one ``acquire()`` whose span cannot be read so, or a loop, an ``await``, a
``with`` or any other call in a span, and the lock counts as held long (a generation or a parse under the lock is
still reported: held-out waves 37 and 38).

The lock is the same when it is one ``self.<attr>`` of a class (every method of that class is read) or one module
global (every function of that module). Only ``threading.Lock``/``RLock``: a semaphore or condition is held for as
long as the work it rations. Held-out wave 68: a Home Assistant integration polling a device-code token in a
coroutine with ``self.lock.acquire()``, while its reader thread only assigns the token and logs under the lock.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["bare_call", "held_briefly", "statement_blocks"]

LOCKS = frozenset({"threading.Lock.acquire", "threading.RLock.acquire"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
CHEAP_CALLS = frozenset({"time.time", "time.monotonic", "time.perf_counter", "len", "str", "int", "float", "bool",
                         "min", "max", "abs", "isinstance", "getattr", "hasattr", "repr", "round"})
"""Calls that cost nanoseconds to microseconds: the clock and small built-ins of Python."""


def held_briefly(target: str, call: ast.Call, func: Func) -> bool:
    """Whether ``call`` (the ``acquire`` of a ``threading`` lock, dotted ``target``) waits only for holders that keep
    the lock for a few cheap statements (see the module docstring)."""
    if target not in LOCKS or not isinstance(call.func, ast.Attribute):
        return False
    lock = dotted(call.func.value)
    if not lock or (lock[0] == "self" and (len(lock) != 2 or func.cls is None)) or (lock[0] != "self" and len(lock) != 1):
        return False
    owner = func.cls if lock[0] == "self" else func.module  # the holders: the class's methods or the module's
    memo = owner.__dict__.setdefault("_faultlib_brief_locks", {})  # functions, read once per lock
    if tuple(lock) not in memo:
        memo[tuple(lock)] = _brief(lock, func)
    return memo[tuple(lock)]


def _brief(lock: list[str], func: Func) -> bool:
    scopes = list(func.cls.methods.values()) if lock[0] == "self" else list(func.module.all_functions)
    spans = []
    for scope in scopes:
        found = _spans(scope.node, lock)
        if found is None:
            return False
        spans += found
    return bool(spans) and all(_cheap(statement, lock) for span in spans for statement in span)


def _spans(node: ast.AST, lock: list[str]) -> list[list[ast.stmt]] | None:
    """The statement lists that hold ``lock`` in ``node``'s body, or None when an ``acquire()`` has no readable span."""
    bare = {id(s.value) for block in statement_blocks(node) for s in block if bare_call(s, lock, "acquire")}
    if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "acquire" and
           dotted(c.func.value) == lock and id(c) not in bare for c in ast.walk(node)):
        return None  # `if lock.acquire(timeout=1): ...`: a holder whose span is not a statement list read here
    found = []
    for block in statement_blocks(node):
        for i, statement in enumerate(block):
            if isinstance(statement, (ast.With, ast.AsyncWith)) and any(
                    dotted(item.context_expr) == lock for item in statement.items):
                found.append(statement.body)
            if bare_call(statement, lock, "acquire"):
                end = next((j for j in range(i + 1, len(block)) if bare_call(block[j], lock, "release")), None)
                if end is None:
                    return None
                found.append(block[i + 1:end])
    return found


def statement_blocks(node: ast.AST):
    """Every statement list inside ``node`` (bodies, branches, handlers), nested functions excluded."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield from statement_blocks(child)
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value


def bare_call(statement: ast.stmt, lock: list[str], method: str) -> bool:
    """Whether ``statement`` is the bare expression ``<lock>.<method>()``."""
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Attribute) and statement.value.func.attr == method
            and dotted(statement.value.func.value) == lock)


def _cheap(statement: ast.stmt, lock: list[str]) -> bool:
    """Whether ``statement`` runs no loop, ``await``, ``with`` or call beyond the cheap ones."""
    for node in ast.walk(statement):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Await, ast.Yield,
                             ast.YieldFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if isinstance(node, ast.Call) and not _cheap_call(node, lock):
            return False
    return True


def _cheap_call(call: ast.Call, lock: list[str]) -> bool:
    name = dotted(call.func) or []
    if ".".join(name) in CHEAP_CALLS:
        return True
    if isinstance(call.func, ast.Attribute) and call.func.attr == "release" and name[:-1] == lock:
        return True
    return (isinstance(call.func, ast.Attribute) and call.func.attr in LOG_METHODS and len(name) >= 2
            and ("log" in name[-2].lower() or name[-2] == "logging"))
