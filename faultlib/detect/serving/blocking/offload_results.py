"""What an offloaded call gives back: ``resp = await asyncio.to_thread(open_object, key)`` is what ``open_object``
returns, and ``await loop.run_in_executor(None, load, path)`` what ``load`` does.

The work runs in a worker thread, but its result comes back to the loop: a model loaded off the loop and then run on
it, or an unread response body fetched off the loop and then read on it, blocks where it is used. The function
argument is found at the position :data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD` or
:data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD_METHODS` gives (``run_in_executor``'s second); its result type
is the analysed function's return type or the vocabulary's ``returns`` entry for a library call. ``open`` itself
handed to the executor (``f = await hass.async_add_executor_job(open, path, "wb")``, held-out wave 43) gives back a
file object: opening is off the loop, but ``f.write(data)`` and ``f.read()`` then run on it
(https://docs.python.org/3/library/functions.html#open returns a file object whose reads and writes are system calls).
A ``requests`` call (of ``requests`` or a package extending its sessions, ``requests_unixsocket``) passed
``stream=True`` -- to the offloading call, or inside the lambda handed to it -- gives back a response whose body is
still unread (:data:`~faultlib.detect.serving.blocking.libraries.responses.STREAMED_RESPONSE`).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.libraries.responses import STREAMED_RESPONSE
from faultlib.detect.serving.blocking.libraries.stdlib import FILE_OBJECT
from faultlib.detect.serving.blocking.model import Func

OPENERS = frozenset({"builtins.open", "io.open", "codecs.open"})
"""The openers whose result, when they run in a worker thread, is a file object read and written on the loop."""
_AWAITED_METHODS = frozenset(vocab.OFFLOAD_METHODS) - {"submit"}
"""Offloading methods whose awaited result is the function's (``executor.submit`` gives a Future instead)."""
_LAST = frozenset({name.rpartition(".")[2] for name in vocab.OFFLOAD}) | _AWAITED_METHODS


def offloaded_function(index, call: ast.Call, func: Func) -> ast.expr | None:
    """The function argument an offloading call (``asyncio.to_thread(fn, ...)``, ``loop.run_in_executor(ex, fn)``)
    runs in its worker thread, or None when ``call`` offloads nothing."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if not call.args or (last not in _LAST and last not in func.module.imports):
        return None  # a cheap test on the called name first (an aliased import is resolved below)
    if isinstance(call.func, ast.Attribute) and call.func.attr in _AWAITED_METHODS:
        position = vocab.OFFLOAD_METHODS[call.func.attr]  # loop.run_in_executor, hass.async_add_executor_job
    else:
        target = index.callee(call.func, func)
        position = vocab.OFFLOAD.get(target) if isinstance(target, str) else None
    if position is None or position >= len(call.args) or isinstance(call.args[position], ast.Starred):
        return None
    return call.args[position]


def offloaded_callee(index, expr: ast.expr, func: Func):
    """What ``await <offload>(fn, ...)`` runs in its worker thread when the awaited value is ``fn``'s own result:
    the analysed sync function (or the library call's dotted name) ``fn`` is, else None. Unpacking that result
    (``self.session, self.tokenizer = await loop.run_in_executor(None, load)``, held-out wave 59) gives ``load``'s
    items: the worker thread builds them, the loop then uses them."""
    if not (isinstance(expr, ast.Await) and isinstance(expr.value, ast.Call)):
        return None
    fn = offloaded_function(index, expr.value, func)
    ran = None if fn is None else index.callee(fn, func)
    if isinstance(ran, Func):
        return None if ran.is_async else ran
    return ran if isinstance(ran, str) else None


def offloaded_result(index, expr: ast.Await, func: Func | None):
    """The type of ``await <offload>(fn, ...)`` (see the module docstring), or None."""
    call = expr.value
    if func is None or not isinstance(call, ast.Call):
        return None
    fn = offloaded_function(index, call, func)
    if fn is not None and _streamed_request(index, call, fn, func):
        return STREAMED_RESPONSE
    ran = None if fn is None else index.callee(fn, func)
    if isinstance(ran, Func) and not ran.is_async:
        return index.return_type(ran)
    if ran in OPENERS:
        return FILE_OBJECT
    return index.vocab.returns.get(ran) if isinstance(ran, str) else None


def streamed_response(index, call: ast.Call, func: Func | None) -> bool:
    """``call`` is a ``requests`` call passed ``stream=True`` made right here (``requests.post(url, stream=True)``):
    its result's body is still unread, whichever thread then reads it (held-out wave 65: a Litestar proxy reading
    the streamed upstream response with ``json()`` and ``iter_content`` on the loop)."""
    return func is not None and _streamed_request(index, call, call.func, func)


def _streamed_request(index, call: ast.Call, fn: ast.expr, func: Func) -> bool:
    """The offloaded work is a ``requests`` call passed ``stream=True``: ``to_thread(session.get, url,
    stream=True)`` or ``run_in_executor(None, lambda: session.post(url, stream=True))``."""
    if isinstance(fn, ast.Lambda):
        if not isinstance(fn.body, ast.Call):
            return False
        fn, keywords = fn.body.func, fn.body.keywords
    else:
        keywords = call.keywords
    streamed = any(k.arg == "stream" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in keywords)
    target = index.callee(fn, func) if streamed else None
    return isinstance(target, str) and target.partition(".")[0].partition("_")[0] == "requests"

