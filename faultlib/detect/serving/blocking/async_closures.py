"""Sync functions handed to a factory whose ``async def`` closure calls them: the loop runs them, they are entries.

An agent framework wraps each tool method into an ``async def`` the agent runtime awaits, the wrapper calling the
method inline (Datus-agent's ``trans_to_function_tool(self.files.read_file)``, held-out wave 46: its
``final_invoker`` awaits a coroutine function and calls any other one directly, so a sync tool's file read or
database query ran on the event loop; the maintainers' later fix moved that call to ``asyncio.to_thread``)::

    def as_tool(method):
        async def invoke(ctx, args):
            return method(**args)          # the sync method runs on the loop whenever the runtime awaits `invoke`
        return invoke

    tools = [as_tool(self.files.read_file)]

A parameter of a sync function of the analysed files runs on the loop when an ``async def`` nested in it calls the
parameter (a free variable there) without awaiting it (``await method(...)`` is the branch for a coroutine
function), or when the function hands the parameter on, by position or keyword, to another
such factory (``create_invoker(method)``: the closure two levels down). Each call of such a factory that passes a sync
function of the analysed files for that parameter (by name or dotted name: a bound method of a typed receiver)
makes that function an entry of the scan (a loop variable walking a literal list of them, each:
:func:`~faultlib.detect.serving.blocking.loop_items.loop_callees`), as a loop callback is (:mod:`~faultlib.detect.serving.blocking.loop_callbacks`).
Call sites that pass anything else are skipped, one by one; the closure itself is not resolved further. A wrapper that
hands the function to a thread (``await asyncio.to_thread(method, ...)``) does not call it: no entry. Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.call_arguments import given_arguments
from faultlib.detect.serving.blocking.infer import _assigned_in
from faultlib.detect.serving.blocking.loop_items import loop_callees
from faultlib.detect.serving.blocking.model import Func, dotted
from faultlib.detect.serving.blocking.scopes import _is_local

__all__ = ["closure_runs", "factory_names"]

MAX_FORWARDS = 4  # factories handing the parameter on, one to the next


def factory_names(funcs: list[Func]) -> frozenset[str]:
    """Names of the sync functions with an ``async def`` nested in them (at any depth): the only factories whose
    calls :func:`closure_runs` resolves, so that other calls are not resolved early."""
    return frozenset(f.node.name for f in funcs if not f.is_async and _has_async_closure(f))


def closure_runs(index, call: ast.Call, func: Func, names: frozenset[str]) -> list[Func]:
    """The sync functions of the analysed files that ``call`` (made in ``func``) hands to a factory whose async
    closure calls them (see the module docstring); ``names`` from :func:`factory_names`."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    if last not in names:
        return []
    target = index.callee(call.func, func)
    if not isinstance(target, Func) or target.is_async:
        return []
    run = _inline_params(index, target, 0)
    found: list[Func] = []
    for name, value in given_arguments(call, target).items():
        if name in run and dotted(value):
            passed = index.callee(value, func)
            if passed is None and isinstance(value, ast.Name):  # for method in [self.read, self.write]: as_tool(method)
                looped = loop_callees(index, func, value.id)
            else:
                looped = [passed]
            found.extend(f for f in looped if isinstance(f, Func) and not f.is_async and f not in found)
    return found


def _has_async_closure(func: Func) -> bool:
    return any(g.is_async or _has_async_closure(g) for g in func.nested.values())


def _params(func: Func) -> list[str]:
    args = func.node.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]


def _inline_params(index, func: Func, depth: int) -> frozenset[str]:
    """The parameters of ``func`` an async closure nested in it calls, directly or through another factory
    (memoised per function)."""
    memo = func.__dict__.setdefault("_faultlib_inline_params", {})
    if "params" in memo:
        return memo["params"]
    memo["params"] = frozenset()  # a cycle of factories answers "none"
    params = {p for p in _params(func) if not _assigned_in(func, p)}
    found = {p for p in params if _closure_calls(func, p)}
    if depth < MAX_FORWARDS:
        for node in func.nodes:
            if not isinstance(node, ast.Call) or not any(
                    isinstance(a, ast.Name) and a.id in params - found for a in [*node.args, *(k.value for k in
                                                                                           node.keywords)]):
                continue
            target = index.callee(node.func, func)
            if not isinstance(target, Func) or target.is_async:
                continue
            run = _inline_params(index, target, depth + 1)
            found |= {v.id for name, v in given_arguments(node, target).items() if name in run and isinstance(v, ast.Name)
                      and v.id in params}
    memo["params"] = frozenset(found)
    return memo["params"]


def _closure_calls(func: Func, name: str) -> bool:
    """An ``async def`` nested in ``func`` (at any depth, through nested functions that do not rebind ``name``)
    calls ``name``, a free variable there."""
    for inner in func.nested.values():
        if _is_local(inner, name):
            continue
        if inner.is_async:
            awaited = {id(n.value) for n in inner.nodes if isinstance(n, ast.Await)}  # a coroutine function's call
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                   and id(n) not in awaited for n in inner.nodes):
                return True
        if _closure_calls(inner, name):
            return True
    return False
