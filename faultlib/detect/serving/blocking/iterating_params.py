"""Generators handed to a function of the analysed files that iterates the parameter they arrive in.

``await embed_all(read_pieces(path))`` makes the generator in the caller and hands it on; ``embed_all`` runs
``for piece in pieces`` on the loop (an ``async def``, or a sync function called right there), so each step of
``read_pieces``' body -- its file reads, its parsing -- runs on the loop too. A parameter counts as iterated when the
callee runs a sync ``for``/comprehension over it or passes it to a consuming builtin (``list``, ``sum``...).
A generator handed to a callee that only stores or returns it (a ``StreamingResponse`` iterates in its thread
pool), to a sync generator function (its body, and the iteration in it, runs wherever that generator is iterated:
``StreamingResponse(encode(chunks()))`` iterates in the thread pool) or to an offloading call
(``asyncio.to_thread(count, rows())``: the callee is the library's, not ours) is not followed. Used by
:mod:`~faultlib.detect.serving.blocking.reach` (its ``_iterated``).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of
from faultlib.detect.serving.blocking.shapes import CONSUMERS, is_generator

__all__ = ["handed_to_iterate", "iterated_params"]


def handed_to_iterate(index, func: Func) -> list[ast.expr]:
    """The arguments (calls, or locals bound to calls) ``func`` passes to a function of the analysed files in a
    parameter that function iterates on the spot."""
    found = []
    for call in nodes_of(func, ast.Call):
        if not (call.args or call.keywords):
            continue
        target = index.callee(call.func, func)
        if not isinstance(target, Func) or (not target.is_async and is_generator(target)):
            continue  # a sync generator's body runs where it is iterated (a StreamingResponse: its thread pool)
        iterated = iterated_params(target)
        if not iterated:
            continue
        params = [a.arg for a in (*target.node.args.posonlyargs, *target.node.args.args)]
        if target.cls is not None and params and params[0] in ("self", "cls"):
            params = params[1:]  # a bound method: the first argument is the first parameter after self
        given = [(params[i] if i < len(params) else None, a) for i, a in enumerate(call.args)]
        given += [(k.arg, k.value) for k in call.keywords]
        found += [arg for name, arg in given if name in iterated and isinstance(arg, (ast.Call, ast.Name))]
    return found


def iterated_params(func: Func) -> frozenset[str]:
    """The parameters of ``func`` it iterates with a sync ``for``, a comprehension or a consuming builtin (memoised)."""
    memo = func.__dict__.get("_iterated_params")
    if memo is not None:
        return memo
    args = func.node.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names = set()
    for node in nodes_of(func, (ast.For, ast.comprehension, ast.Call)):
        if isinstance(node, (ast.For, ast.comprehension)) and not getattr(node, "is_async", 0):
            names.add(node.iter)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CONSUMERS
              and node.args):
            names.add(node.args[0])
    memo = frozenset(n.id for n in names if isinstance(n, ast.Name) and n.id in params)
    func.__dict__["_iterated_params"] = memo
    return memo
