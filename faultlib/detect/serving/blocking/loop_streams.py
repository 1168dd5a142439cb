"""A sync stream opened on the loop and iterated there: each chunk is a network read (or a step of the model).

``stream = client.chat.completions.create(..., stream=True)`` on a sync client returns at once with the response's
head; ``for chunk in stream`` then reads every chunk as it arrives (https://github.com/openai/openai-python#streaming-
responses: the sync client's ``Stream`` is iterated with ``for``, the ``AsyncStream`` with ``async for``). The call is
one blocker and the loop another, which stays when only the call is fixed. The stream is asked for by a literal
``stream=True`` or through the ``**`` dict the call is given (``config["stream"] = True``, ``{"stream": True}``,
``config.update(stream=True)``). The opening call must block (the analysis' own verdict on it); a call that is
awaited, or a local assigned more than once, is left alone. Used by
:func:`~faultlib.detect.serving.blocking.shapes.consumed_streams`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["opened_on_loop"]


def opened_on_loop(func: Func, blocking) -> list[tuple[ast.For, object]]:
    """``(the for, the blocking site of the opening call)`` for each sync ``for`` over a stream opened on the loop
    in ``func`` (``blocking(call, func, False)`` judges the call)."""
    loops = [n for n in nodes_of(func, ast.For) if isinstance(n.iter, ast.Name)]
    if not loops:
        return []
    assigned: dict[str, list[ast.expr]] = {}
    for node in nodes_of(func, ast.Assign):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    found = []
    for node in loops:
        values = assigned.get(node.iter.id, [])
        if len(values) != 1 or not isinstance(values[0], ast.Call) or not _asks_stream(values[0], func):
            continue
        site = blocking(values[0], func, False)
        if site is not None:
            found.append((node, site))
    return found


def _asks_stream(call: ast.Call, func: Func) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "stream":
            return isinstance(keyword.value, ast.Constant) and keyword.value.value is True
        if keyword.arg is None and isinstance(keyword.value, ast.Name) and _dict_streams(keyword.value.id, func):
            return True
    return False


def _dict_streams(name: str, func: Func) -> bool:
    """The dict ``name`` is given ``"stream": True`` in ``func``."""
    for node in func.nodes:
        if isinstance(node, ast.Assign) and _true(node.value) and any(
                isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                and isinstance(t.slice, ast.Constant) and t.slice.value == "stream" for t in node.targets):
            return True  # config["stream"] = True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets) and any(
                isinstance(k, ast.Constant) and k.value == "stream" and _true(v)
                for k, v in zip(node.value.keys, node.value.values)):
            return True  # config = {..., "stream": True}
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name
                and any(k.arg == "stream" and _true(k.value) for k in node.keywords)):
            return True  # config.update(stream=True)
    return False


def _true(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is True
