"""A call of a loop variable that walks a list the callers pass in: ``setup_cleanup_hooks([partial(executor.shutdown,
wait=True), client.close])`` and, in the hook it builds, ``for func in tasks: func()``.

An aiohttp or Starlette service often collects its shutdown steps in a list literal and hands it to a small factory
whose async closure (the ``on_cleanup`` hook) calls each one on the loop. The element that is a blocking call of the
vocabulary -- a library function or a bound method of a typed receiver, bare or wrapped in ``functools.partial``
with its arguments -- blocks at the closure's call, with the arguments the ``partial`` binds (``wait=True``) and
the ones the call adds. The list must be the loop's iterated name, a parameter of the function or of the one that
encloses it (a closure), never rebound, and every call site of that function must pass a list or tuple display for
it; anything else answers nothing. Functions of the analysed files among the elements are left to the call graph.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, _is_local, dotted
from faultlib.detect.serving.blocking.scopes import _enclosing_scope

__all__ = ["listed_targets"]

MAX_CALLERS = 16


def listed_targets(index, call: ast.Call, func: Func) -> list[tuple[str, ast.Call, Func, str]]:
    """``(dotted target, the call as the element makes it, the caller's function, the list's name)`` for each
    element of the passed lists that a library call is (see the module docstring); empty when unknown."""
    if not isinstance(call.func, ast.Name):
        return []
    loops = [n for n in func.nodes if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
             and n.target.id == call.func.id]
    if len(loops) != 1 or not isinstance(loops[0].iter, ast.Name):
        return []
    name = loops[0].iter.id
    owner = func if _is_local(func, name) else _enclosing_scope(func, name)
    found = []
    for element, caller in _passed_elements(index, owner, name) if owner is not None else []:
        partial = (isinstance(element, ast.Call) and (dotted(element.func) or [""])[-1] == "partial"
                   and element.args and not any(isinstance(a, ast.Starred) for a in element.args))
        bound = element.args[0] if partial else element
        target = index.callee(bound, caller) if dotted(bound) else None
        if not isinstance(target, str):
            continue
        made = element.__dict__.setdefault("_faultlib_listed", {})  # kept alive: analysis memos key on node ids
        if id(call) not in made:
            extra = (element.args[1:], element.keywords) if partial else ((), [])
            made[id(call)] = ast.copy_location(ast.Call(func=bound, args=[*extra[0], *call.args],
                                                        keywords=[*extra[1], *call.keywords]), call)
        found.append((target, made[id(call)], caller, name))
    return found


def _passed_elements(index, owner: Func, name: str) -> list[tuple[ast.expr, Func]]:
    args = owner.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if name not in positional and name not in [a.arg for a in args.kwonlyargs]:
        return []
    if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in owner.nodes):
        return []
    bound = owner.cls is not None and not any(dotted(d) == ["staticmethod"] for d in owner.node.decorator_list)
    position = positional.index(name) - (1 if bound else 0) if name in positional else None
    calls = index.infer.sites().get(owner.node.name, [])
    if not calls or len(calls) > MAX_CALLERS:
        return []
    found: list[tuple[ast.expr, Func]] = []
    for site, caller in calls:
        target = index.callee(site.func, caller)
        if target is not owner:
            if target is None:
                return []
            continue
        value = next((k.value for k in site.keywords if k.arg == name), None)
        if value is None and position is not None and 0 <= position < len(site.args):
            value = site.args[position]
        if not isinstance(value, (ast.List, ast.Tuple)):
            return []
        found.extend((element, caller) for element in value.elts if not isinstance(element, ast.Starred))
    return found
