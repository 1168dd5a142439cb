"""What a call of a loop variable may run when the loop walks a literal table of functions or classes.

``for label, folder, parse in [("docs", DOCS, parse_markdown), ("faq", FAQ, parse_faq)]: parse(path)`` calls
``parse_markdown`` on one turn and ``parse_faq`` on the next; so does ``for step in (load, clean): step(x)`` and
``for name, handler in HANDLERS.items(): handler(event)`` over a literal dict (``.values()`` too). The table is a
display in the loop or a name bound to one once (in the function, or a module global the function does not
rebind: :meth:`~faultlib.detect.serving.blocking.infer.Inference.literal`). A tuple target takes the item of each
row at its position (rows of another length are skipped). Used by
:func:`~faultlib.detect.serving.blocking.choices.picked`; the callees are :class:`Func`/:class:`Klass`, at most
:data:`LIMIT`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["LIMIT", "loop_callees", "loop_rows", "loop_values"]

LIMIT = 32
"""The most callees one loop variable is given (a longer table is cut there)."""


def loop_callees(index, func: Func, name: str) -> list:
    """The functions and classes ``name`` may be when a ``for`` of ``func`` binds it from a literal table
    (remembered per function and name)."""
    table = func.__dict__.setdefault("_faultlib_loop_callees", {})
    if name not in table:
        table[name] = _callees(index, func, name)
    return table[name]


def _callees(index, func: Func, name: str) -> list:
    loops = func.__dict__.get("_faultlib_loops")
    if loops is None:  # the function's for-loops, found once
        loops = func.__dict__["_faultlib_loops"] = [n for n in func.nodes if isinstance(n, ast.For)]
    found: list = []
    for node in loops:
        if not _binds(node.target, name):
            continue
        for value in _items(index, node, func, name):
            target = index.callee(value, func) if dotted(value) else None
            if isinstance(target, (Func, Klass)) and all(target is not f for f in found):
                found.append(target)
            if len(found) >= LIMIT:
                return found
    return found


def loop_values(index, func: Func, name: str) -> list[ast.expr]:
    """The expressions every ``for`` of ``func`` that binds ``name`` takes it from, row by row, when each walks a
    literal table (``for path in ["pkg", "pkg.sub"]``); [] when any loop binding it walks something else."""
    values: list[ast.expr] = []
    for node in (n for n in func.nodes if isinstance(n, ast.For) and _binds(n.target, name)):
        items = _items(index, node, func, name)
        if not items:
            return []
        values += items
    return values[:LIMIT]


def loop_rows(index, loop: ast.For, func: Func, name: str) -> list[ast.expr]:
    """The values the one ``for`` statement ``loop`` of ``func`` binds ``name`` to, row by row, when it walks a
    literal table; [] otherwise."""
    return _items(index, loop, func, name)[:LIMIT] if _binds(loop.target, name) else []


def _binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _items(index, node: ast.For, func: Func, name: str) -> list[ast.expr]:
    """The values the loop binds ``name`` to, row by row, when the iterated value is a literal table."""
    source, dict_view = node.iter, None
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and not source.args \
            and source.func.attr in ("items", "values"):
        source, dict_view = source.func.value, source.func.attr
    literal = index.infer.literal(source, func)
    if literal is None:
        return []
    if isinstance(literal, ast.Dict):
        if dict_view == "values":
            rows = list(literal.values)
        elif dict_view == "items":
            rows = [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in zip(literal.keys, literal.values)
                    if k is not None]
        else:
            return []  # a dict iterates its keys
    elif dict_view is None:
        rows = list(literal.elts)
    else:
        return []
    return [value for row in rows for value in _at(node.target, row, name)]


def _at(target: ast.expr, row: ast.expr, name: str) -> list[ast.expr]:
    if isinstance(target, ast.Name):
        return [row] if target.id == name else []
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(row, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(row.elts) and not any(isinstance(e, ast.Starred) for e in row.elts):
        return [value for elt, item in zip(target.elts, row.elts) for value in _at(elt, item, name)]
    return []
