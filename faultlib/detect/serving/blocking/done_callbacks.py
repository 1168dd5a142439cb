"""A future's outcome read inside its own done callback: the future is finished when the callback runs, so
``fut.result()`` and ``fut.exception()`` return at once ("add_done_callback(fn): Attaches the callable fn to the
future. fn will be called, with the future as its only argument, when the future is cancelled or finishes
running", https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Future.add_done_callback;
asyncio's ``Future.add_done_callback`` the same, https://docs.python.org/3/library/asyncio-future.html). Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the waits of ``blocking_task``.

The callback is a function whose first parameter (after ``self``) is the receiver of the call, and the file hands
it by name to ``add_done_callback`` (``fut.add_done_callback(on_done)``, ``fut.add_done_callback(self.on_done)``).
The same read in a function no ``add_done_callback`` receives, or on another future, stays a wait (held-out wave
52: a Bluetooth bridge's ``done_future.result()`` in three done callbacks).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["reads_own_done_future"]

OUTCOMES = frozenset({"result", "exception"})


def reads_own_done_future(call: ast.Call, func: Func) -> bool:
    """``call`` is ``p.result()``/``p.exception()`` with ``p`` the future ``func`` is called with as a done
    callback."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in OUTCOMES
            and isinstance(call.func.value, ast.Name)):
        return False
    params = [a.arg for a in (*func.node.args.posonlyargs, *func.node.args.args)]
    if func.cls is not None and func.parent is None and params[:1] == ["self"]:
        params = params[1:]
    if params[:1] != [call.func.value.id]:
        return False
    return _registered(func.node.name, func.module.tree)


def _registered(name: str, tree: ast.AST) -> bool:
    """Some ``x.add_done_callback(name)`` or ``x.add_done_callback(self.name)`` in ``tree``."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_done_callback" and node.args):
            handed = node.args[0]
            if (isinstance(handed, ast.Name) and handed.id == name) or (
                    isinstance(handed, ast.Attribute) and handed.attr == name):
                return True
    return False
