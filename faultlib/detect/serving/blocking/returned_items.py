"""A callable taken out of the tuple a function of the analysed files returns: ``tokenize, embed = make_pipeline()``
then ``embed(text)``, or the same tuple kept in an aiohttp application (``app["model"] = make_pipeline()``) and
unpacked by a handler (``tokenize, embed = request.app["model"]``).

Unpacking assigns the tuple's items to the targets in order (the language reference, "Assignment statements": "the
object must be an iterable with the same number of items as there are targets in the target list, and the items are
assigned, from left to right, to the corresponding targets", https://docs.python.org/3/reference/simple_stmts.html
#assignment-statements), so item ``i`` of every ``return (a, b)`` of the function is what the ``i``-th target calls:
a function, a ``functools.partial`` of one, or a class, resolved where the return is written. Every return must be a
tuple (or list) display long enough, and their items must call the same thing; an application key must be stored
only such values (:func:`~faultlib.detect.serving.blocking.app_items.app_stores`). Held-out wave 65: an aiohttp
view took ``tokenizer, model = self.request.app["model"]`` from ``create_model()``'s ``(tokenizer_full,
model_full)`` of two partials and ran the model's forward on the loop. Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.callee`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.app_items import app_stores
from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["returned_item"]

MAX_SOURCES = 8
"""Stores (application keys) or returns examined for one item."""


def returned_item(index, expr: ast.Subscript, func: Func) -> Func | Klass | str | None:
    """What calling ``source[i]`` calls (``i`` an int constant) when ``source`` is a call of a function of the
    analysed files returning tuples, a local bound once to one, or an aiohttp application key holding one; else
    None."""
    if not (isinstance(expr.slice, ast.Constant) and type(expr.slice.value) is int and expr.slice.value >= 0):
        return None
    sources = _sources(index, expr.value, func)
    found = []
    for value, scope in sources[:MAX_SOURCES]:
        items = _items(index, value, scope, expr.slice.value)
        if not items:
            return None
        found += items
    if not found or len(sources) > MAX_SOURCES:
        return None
    first = found[0]
    return first if all(t is first or t == first for t in found) else None


def _sources(index, source: ast.expr, func: Func) -> list[tuple[ast.expr, Func]]:
    if isinstance(source, ast.Call):
        return [(source, func)]
    if isinstance(source, ast.Name):
        bound = [n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == source.id]
        return [(bound[0], func)] if len(bound) == 1 and isinstance(bound[0], ast.Call) else []
    if isinstance(source, ast.Subscript):
        return app_stores(index, source.value, source.slice, func) or []
    return []


def _items(index, value: ast.expr, scope: Func, position: int) -> list:
    """What item ``position`` of ``value`` calls: of a tuple display directly, of a call of a function of the
    analysed files at each of its returns; empty when one of them is not a long enough display or unknown."""
    if isinstance(value, (ast.Tuple, ast.List)):
        displays = [(value, scope)]
    elif isinstance(value, ast.Call):
        target = index.callee(value.func, scope)
        if not isinstance(target, Func) or target.is_async:
            return []
        displays = [(n.value, target) for n in target.nodes if isinstance(n, ast.Return)]
    else:
        return []
    found = []
    for display, where in displays[:MAX_SOURCES]:
        if not isinstance(display, (ast.Tuple, ast.List)) or position >= len(display.elts):
            return []
        item = display.elts[position]
        called = index.callee(item, where) if dotted(item) is not None or isinstance(item, ast.Call) else None
        if not isinstance(called, (Func, Klass, str)):
            return []
        found.append(called)
    return found
