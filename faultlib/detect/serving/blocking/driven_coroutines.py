"""Coroutines the program's own scheduler steps by hand, in synchronous code: no event loop runs them.

``async def`` is syntax; what runs a coroutine is whoever steps it. "Coroutine objects are awaitable objects. A
coroutine's execution can be controlled by calling ``__await__()`` and iterating over the result", or by its
``send()`` (https://docs.python.org/3/reference/datamodel.html#coroutine-objects). asyncio's event loop is one such
driver; a program may write its own. ESPHome's code generator writes its components' code emitters as ``async def``
and runs them from a priority queue in the compile process, "only [using] the coroutine *syntax*, no actual asyncio
event loop is running" (esphome/coroutine.py: ``add_job(func, *args)`` keeps ``func(*args).__await__()`` and
``flush_tasks`` calls ``next`` on it; held-out wave 67, whose dashboard shares the package with a real loop).

A synchronous function of the analysed files *drives* one of its parameters when it calls it (or a local bound to
it) and takes ``__await__()`` of the result or calls ``send(...)`` on it, directly or through a local; one that
passes the parameter on to a driver at the driven parameter drives it too (``Core.add_job(func, *args)`` forwarding
to its queue's ``add_job``). A coroutine function of the analysed files is *driven* when every reference to its name
in the analysed files (other than its ``def``) is an argument given to a driver at such a parameter: nothing else
awaits it, schedules it or hands it to asyncio. :mod:`~faultlib.detect.serving.blocking.private_loops` then treats it
as a coroutine that never runs on the server's loop, and so every coroutine awaited only from driven ones. A
coroutine of the same name referenced anywhere else stays an entry; so does everything when no driver is found.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.call_arguments import caller_parameters, given_arguments
from faultlib.detect.serving.blocking.model import Func

__all__ = ["driven_coroutines"]

STEPS = frozenset({"__await__", "send"})
"""The methods that step a coroutine object by hand (the data model's coroutine protocol)."""
MAX_ROUNDS = 8


def driven_coroutines(index) -> list[Func]:
    """The coroutine functions of the analysed files that only a hand-written driver steps (see the module
    docstring)."""
    sites = index.infer.sites()
    drivers = _drivers(sites)
    if not drivers:
        return []
    handed: dict[int, Func] = {}
    arguments: set[int] = set()  # the argument nodes that hand a coroutine function to a driver
    for _ in range(MAX_ROUNDS):
        grown = False
        for driver, param in list(drivers.items()):
            for call, caller in sites.get(driver.node.name, []):
                if index.callee(call.func, caller) is not driver:
                    continue
                arg = given_arguments(call, driver).get(param)
                if arg is None:
                    continue
                forwarded = _own_param(caller, arg)
                if forwarded is not None and not caller.is_async and caller not in drivers:
                    drivers[caller] = forwarded
                    grown = True
                    continue
                target = index.callee(arg, caller)
                if isinstance(target, Func) and target.is_async:
                    handed[id(target)] = target
                    arguments.add(id(arg))
        if not grown:
            break
    return [f for f in handed.values() if _only_handed(index, f, arguments)]


def _drivers(sites) -> dict[Func, str]:
    """Sync functions that step a coroutine their parameter makes: ``{function: parameter name}``."""
    found: dict[Func, str] = {}
    for step in STEPS:
        for call, func in sites.get(step, []):
            if func.is_async or not isinstance(call.func, ast.Attribute) or func in found:
                continue
            param = _stepped_param(call.func.value, func)
            if param is not None:
                found[func] = param
    return found


def _stepped_param(receiver: ast.expr, func: Func) -> str | None:
    """The parameter of ``func`` whose call ``receiver`` is (``param(...)``, or a local bound to it, or a local
    bound to such a call), else None."""
    params = caller_parameters(func)
    aliases = {n.targets[0].id: n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name)}
    if isinstance(receiver, ast.Name) and isinstance(aliases.get(receiver.id), ast.Call):
        receiver = aliases[receiver.id]  # coro = func(*args); coro.send(None)
    if not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)):
        return None
    name = receiver.func.id
    seen = 0
    while name not in params and isinstance(aliases.get(name), ast.Name) and seen < MAX_ROUNDS:
        name, seen = aliases[name].id, seen + 1  # coro = func; coro(*args).__await__()
    return name if name in params else None


def _own_param(func: Func, arg: ast.expr) -> str | None:
    """The parameter of ``func`` that ``arg`` names unchanged, else None."""
    return arg.id if isinstance(arg, ast.Name) and arg.id in caller_parameters(func) else None


def _only_handed(index, coroutine: Func, arguments: set[int]) -> bool:
    """Every reference to ``coroutine``'s name in the analysed files is one of the handing ``arguments``."""
    name = coroutine.node.name
    for module in index.distinct_modules():
        if name not in module.source:
            continue
        for node in ast.walk(module.tree):
            named = (isinstance(node, ast.Name) and node.id == name) or (
                isinstance(node, ast.Attribute) and node.attr == name)
            if named and isinstance(node.ctx, ast.Load) and id(node) not in arguments:
                return False
    return True
