"""A lambda handed to a function of the analysed files that runs that parameter in a worker thread is off the loop.

Projects write their own offloader: ``async def sync_to_async(func, *args, **kwargs)`` doing
``await loop.run_in_executor(pool, functools.partial(func, *args, **kwargs))`` (a Pyrogram mirror bot's helper, the
shape of asgiref's ``sync_to_async``: https://docs.djangoproject.com/en/stable/topics/async/#sync-to-async), then
``await sync_to_async(lambda: list(os.walk(path)))``. The lambda's body runs where the helper hands it, in the
executor (https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.loop.run_in_executor: "Arrange for func to
be called in the specified executor"), not at the line it is written on. A named function passed there was never
taken for a call; a lambda is, since a lambda handed to an unknown or third-party function (``sorted(key=...)``,
``map``) usually runs right there. :func:`offloaded_lambda` names the lambda argument whose parameter the called
function hands off (:func:`~faultlib.detect.serving.blocking.wrappers.hands_off`: to ``run_in_executor`` or an
offloading call of :data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`, and never called by the helper itself).
Used by :meth:`~faultlib.detect.serving.blocking.reach.Reach._walk_calls`, beside
:func:`~faultlib.detect.serving.blocking.stored_lambdas.stored_lambda`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.wrappers import hands_off

__all__ = ["offloaded_lambda"]


def offloaded_lambda(index, call: ast.Call, func: Func) -> ast.AST | None:
    """The lambda argument of ``call`` (the positional node, or its ``keyword``) when ``call`` calls a function of the
    analysed files that hands the parameter it binds to a worker thread; None otherwise."""
    positions = [i for i, a in enumerate(call.args) if isinstance(a, ast.Lambda)]
    keywords = [k for k in call.keywords if k.arg and isinstance(k.value, ast.Lambda)]
    if not positions and not keywords:
        return None
    target = index.callee(call.func, func)
    if not isinstance(target, Func):
        return None
    args = target.node.args
    params = [a.arg for a in args.posonlyargs + args.args]
    if target.cls is not None and isinstance(call.func, ast.Attribute) and params and not _is_static(target):
        params = params[1:]  # self.run_blocking(lambda: ...): the receiver is bound to the first parameter
    for position in positions:
        if position < len(params) and hands_off(index, target, params[position]):
            return call.args[position]
    names = set(params) | {a.arg for a in args.kwonlyargs}
    return next((k for k in keywords if k.arg in names and hands_off(index, target, k.arg)), None)


def _is_static(func: Func) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.node.decorator_list)
