"""Decorators written in the analysed files: calling a decorated function runs the decorator's wrapper.

``@retry(3)`` on ``def query(self, q)`` rebinds ``query`` to what the decorator returns; the usual shape is a
wrapper closure that calls the original and does its own work around it (a retry loop that sleeps between attempts,
a timer, a lock)::

    def with_retries(attempts=3):
        def decorator(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                for i in range(attempts):
                    try:
                        return fn(*args, **kwargs)
                    except TimeoutError:
                        time.sleep(2 ** i)
            return wrapper
        return decorator

So a call of ``query`` from the loop also runs ``wrapper``'s body on the loop (Python's decorator semantics:
https://docs.python.org/3/reference/compound_stmts.html#function-definitions, "the result [of the decorator
expression] is bound to the function name"). The wrappers taken are the innermost plain ``def`` functions nested in
the decorator (or in the decorator a factory's call returns) that the decorator hands back; an ``async def``
wrapper is an entry of its own and one that moves the call to a thread is
:mod:`~faultlib.detect.serving.blocking.wrappers`'. Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["decorator_wrappers"]

MAX_NESTING = 3


def decorator_wrappers(index, func: Func) -> list[Func]:
    """The sync wrapper functions of ``func``'s decorators of the analysed files (see the module docstring)."""
    memo = index.__dict__.setdefault("_faultlib_wrappers", {})
    if id(func) not in memo:
        memo[id(func)] = [w for d in func.node.decorator_list for w in _wrappers(index, d, func)]
    return memo[id(func)]


def _wrappers(index, decorator: ast.expr, func: Func) -> list[Func]:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    scope = func.parent or func  # the decorator expression is evaluated where the function is defined
    found = index.callee(target, scope) if isinstance(target, (ast.Name, ast.Attribute)) else None
    if not isinstance(found, Func) or found.is_async:
        return []
    return _returned_leaves(found, 0)


def _returned_leaves(decorator: Func, depth: int) -> list[Func]:
    """The innermost nested functions ``decorator`` returns (``return wrapper``; ``return decorator`` of a factory,
    then that decorator's own). A returned function that itself hands back a nested function is a decorator, not a
    wrapper: it runs once, where the decorated function is defined, so when what it hands back is an ``async def``
    (a bot's command decorator registering its async wrapper as a handler) nothing of it runs at each call."""
    out = []
    for name, nested in decorator.nested.items():
        if name not in _returned_names(decorator) or nested.is_async:
            continue
        inner = _returned_leaves(nested, depth + 1) if nested.nested and depth < MAX_NESTING else []
        hands_back = any(n in nested.nested for n in _returned_names(nested))
        out += inner or ([] if hands_back else [nested])
    return out


def _returned_names(func: Func) -> set[str]:
    return {n.value.id for n in func.nodes if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}
