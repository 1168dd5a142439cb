"""Sync functions handed to the event loop as callbacks: the loop runs them, so they are entries of the scan.

Two shapes. A loop method called with the function (asyncio's ``loop.call_soon(fn)``, ``call_later(delay, fn)``,
``fut.add_done_callback(fn)``; Tornado's ``IOLoop.add_callback(fn)``, ``spawn_callback(fn)``,
``add_timeout(deadline, fn)``, ``call_later(delay, fn)``, each calling it on a later iteration of the IOLoop:
https://www.tornadoweb.org/en/stable/ioloop.html): :data:`~faultlib.detect.serving.blocking.vocab.LOOP_CALLBACK_METHODS`. A class
whose constructor takes a callback that the loop then runs on a schedule (Tornado's ``PeriodicCallback(fn,
callback_time)``, started, calls it every ``callback_time`` ms on the current IOLoop,
https://www.tornadoweb.org/en/stable/ioloop.html#tornado.ioloop.PeriodicCallback): :data:`LOOP_CALLBACK_CLASSES`.
Textual's own (``push_screen(screen, callback)``, ``call_later(fn)``, a command palette ``Hit``):
:mod:`~faultlib.detect.serving.blocking.textual_apps`. Used by :mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.textual_apps import textual_callback

__all__ = ["LOOP_CALLBACK_CLASSES", "loop_callback"]

LOOP_CALLBACK_CLASSES: dict[str, int] = {"tornado.ioloop.PeriodicCallback": 0}
"""Classes (dotted names) whose constructor's function argument (at this index) the loop runs as a callback."""
_LAST = frozenset(name.rpartition(".")[2] for name in LOOP_CALLBACK_CLASSES)


def loop_callback(index, call: ast.Call, func: Func) -> Func | None:
    """The function of the analysed files that ``call`` (made in ``func``) hands to the loop to run, or None."""
    textual = textual_callback(index, call, func)
    if textual is not None:
        return textual
    position = None
    if isinstance(call.func, ast.Attribute) and call.func.attr in vocab.LOOP_CALLBACK_METHODS:
        position = vocab.LOOP_CALLBACK_METHODS[call.func.attr]
    elif (call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)) in _LAST:
        name = index.callee(call.func, func)  # resolved only for a likely name: resolving early fills caches
        position = LOOP_CALLBACK_CLASSES.get(name) if isinstance(name, str) else None
    if position is None or len(call.args) <= position:
        return None
    target = index.callee(call.args[position], func)
    return target if isinstance(target, Func) else None
