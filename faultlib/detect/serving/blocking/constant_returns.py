"""A local bound once to what a function of the analysed files returns, when that is always one of a few constants.

``fmt = get_audio_format(data)`` where ``get_audio_format`` returns ``"wav"`` from its ``try`` and ``"pcm"`` from
its ``except``: ``fmt`` holds one of the two, whatever the data, so a test or an argument built from ``fmt`` is read
with those values (:mod:`~faultlib.detect.serving.blocking.branches`; held-out wave 69: bolna's synthesizer passes
the detected format on to its ``resample`` helper, which hands ``"pcm"`` to numpy and ``"wav"`` to pydub's own WAV
reader). Every ``return`` of the function gives a constant, and no path falls off its end (which would return
``None``: https://docs.python.org/3/reference/compound_stmts.html#function-definitions); it is a plain ``def`` (no
generator, no decorator that may change what a call returns). The local is bound once in its function (one
assignment, no other store) and is no parameter.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["always_leaves", "held_constants"]

MAX_RETURNS = 8
"""``return`` statements read at most; more: the values are taken as unknown."""


def held_constants(index, name: ast.Name, scope: Func) -> list | None:
    """The constants the local ``name`` of ``scope`` may hold (see the module docstring), or None."""
    stores = [n for n in scope.nodes if isinstance(n, ast.Name) and n.id == name.id and not isinstance(n.ctx, ast.Load)]
    args = scope.node.args
    if len(stores) != 1 or name.id in {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}:
        return None
    bound = next((a for a in nodes_of(scope, ast.Assign) if len(a.targets) == 1 and a.targets[0] is stores[0]), None)
    if bound is None or not isinstance(bound.value, ast.Call):
        return None
    func = index.callee(bound.value.func, scope)
    if not isinstance(func, Func) or func.is_async or func.node.decorator_list or nodes_of(
            func, (ast.Yield, ast.YieldFrom)) or not always_leaves(func.node.body):
        return None
    returns = nodes_of(func, ast.Return)
    if not returns or len(returns) > MAX_RETURNS or not all(isinstance(r.value, ast.Constant) for r in returns):
        return None
    return list(dict.fromkeys(r.value.value for r in returns))


def always_leaves(body: list[ast.stmt]) -> bool:
    """Every way through ``body`` ends in a ``return`` or a ``raise``: it never falls off its end, nor through to the
    statement after it (https://docs.python.org/3/reference/simple_stmts.html#the-return-statement: ``return`` leaves
    the function). Shared with :mod:`~faultlib.detect.serving.blocking.branches` (an ``if`` that always leaves guards
    what follows it)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return always_leaves(last.body) and always_leaves(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return always_leaves(last.body)
    if isinstance(last, ast.Try):
        return (always_leaves(last.finalbody) if last.finalbody else False) or (
            (always_leaves(last.body) or always_leaves(last.orelse)) and all(always_leaves(h.body)
                                                                             for h in last.handlers))
    return False
