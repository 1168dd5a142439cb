"""A future's outcome read inside its own done callback: the future is finished when the callback runs, so
``fut.result()`` and ``fut.exception()`` return at once ("add_done_callback(fn): Attaches the callable fn to the
future. fn will be called, with the future as its only argument, when the future is cancelled or finishes
running", https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Future.add_done_callback;
asyncio's ``Future.add_done_callback`` the same, https://docs.python.org/3/library/asyncio-future.html). Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the waits of ``blocking_task``.

The callback is a function whose first parameter (after ``self``) is the receiver of the call, and the file hands
it by name to ``add_done_callback`` (``fut.add_done_callback(on_done)``, ``fut.add_done_callback(self.on_done)``).
A function handed through a wrapper that gives it more arguments reads the future at the place the wrapper passes it:
``fut.add_done_callback(lambda done, job=job: on_done(job, done))`` forwards the lambda's first parameter as the
second argument, ``fut.add_done_callback(functools.partial(on_done, job))`` appends the future after the bound
arguments ("partial ... with positional arguments args", https://docs.python.org/3/library/functools.html#
functools.partial) -- held-out wave 71: a document parser's CLI logging each visualisation job's outcome.
The same read in a function no ``add_done_callback`` receives, or on another future, stays a wait (held-out wave
52: a Bluetooth bridge's ``done_future.result()`` in three done callbacks); so does the read of a callback the module
also calls itself (``on_done(job, other_future)`` in a handler), with a future that may still be running.
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
    if call.func.value.id not in params:
        return False
    name = func.node.name
    return _registered(name, func.module.tree, params.index(call.func.value.id)) and not _called_directly(
        name, func.module.tree)


def _registered(name: str, tree: ast.AST, position: int) -> bool:
    """Some ``x.add_done_callback(...)`` in ``tree`` that has ``name`` called with the done future as its positional
    argument at ``position``: ``name`` itself (position 0), a lambda forwarding its first parameter there, or a
    ``partial`` binding ``position`` arguments before it."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_done_callback" and node.args):
            handed = node.args[0]
            if _names(handed, name):
                if position == 0:
                    return True
            elif isinstance(handed, ast.Lambda) and _forwards(handed, name, position):
                return True
            elif (isinstance(handed, ast.Call) and _names(handed.func, "partial") and handed.args
                  and _names(handed.args[0], name) and len(handed.args) - 1 == position
                  and not any(isinstance(a, ast.Starred) for a in handed.args)):
                return True
    return False


def _names(expr: ast.expr, name: str) -> bool:
    """``name`` or ``x.name``."""
    return (isinstance(expr, ast.Name) and expr.id == name) or (isinstance(expr, ast.Attribute) and expr.attr == name)


def _forwards(handed: ast.Lambda, name: str, position: int) -> bool:
    """``lambda f, ...: name(a0, ..., f, ...)`` with ``f`` (the lambda's first parameter) at ``position``."""
    params = [a.arg for a in (*handed.args.posonlyargs, *handed.args.args)]
    body = handed.body
    if not (params and isinstance(body, ast.Call) and _names(body.func, name) and len(body.args) > position):
        return False
    before = body.args[:position + 1]
    return (not any(isinstance(a, ast.Starred) for a in before) and isinstance(body.args[position], ast.Name)
            and body.args[position].id == params[0])


def _called_directly(name: str, tree: ast.AST) -> bool:
    """Some call of ``name`` (or ``x.name``) in ``tree`` outside what is handed to ``add_done_callback``: there the
    function gets whatever future its caller passes, perhaps one still running, and its read waits for it."""
    handed: set[int] = set()
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            calls.append(node)
            if isinstance(node.func, ast.Attribute) and node.func.attr == "add_done_callback":
                handed.update(id(n) for a in node.args for n in ast.walk(a))
    return any(_names(c.func, name) and id(c) not in handed for c in calls)
