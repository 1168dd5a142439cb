"""The items of a list a function of the analysed files builds by appending and returns.

``frames = self._filtered_frames(img)`` and then ``frames[0].save(path, save_all=True, append_images=frames[1:])``:
when the helper starts a local with ``[]`` (or ``list()``), fills it only with ``append`` of values of one type and
returns that local at every ``return``, its caller holds a list of that type (``list.append`` "adds an item to the
end of the list": https://docs.python.org/3/tutorial/datastructures.html#more-on-lists), so an item of the name the
call is bound to (once) has that type. Held-out wave 50: a chat bot's GIF filter returned its Pillow frames, and the
command encoded them into a file on the loop (FlameCogs' deepfry before its documented fix 6e5cb71). Used by
:mod:`~faultlib.detect.serving.blocking.typeof` for ``name[i]``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import _assigned_in, _single_assignment
from faultlib.detect.serving.blocking.model import Func, Type

__all__ = ["appended_item"]


def appended_item(index, container: ast.expr, func: Func) -> Type | None:
    """The type of an item of ``container``, a local of ``func`` bound once to a call of a function of the analysed
    files that returns a list it built by appending values of one type, or None (remembered per function and name)."""
    if not isinstance(container, ast.Name) or not _assigned_in(func, container.id):
        return None
    table = func.__dict__.setdefault("_faultlib_appended", {})
    if container.id not in table:
        table[container.id] = None  # a helper reached again while its own items are typed stays unknown
        value = _single_assignment(func, container.id)
        target = index.callee(value.func, func) if isinstance(value, ast.Call) else None
        table[container.id] = _item_type(index, target) if isinstance(target, Func) else None
    return table[container.id]


def _item_type(index, helper: Func) -> Type | None:
    returns = [n for n in helper.nodes if isinstance(n, ast.Return)]
    if not returns or not all(isinstance(r.value, ast.Name) for r in returns):
        return None
    names = {r.value.id for r in returns}
    if len(names) != 1:
        return None
    name = names.pop()
    if not _is_empty_list(_single_assignment(helper, name)):
        return None
    items = []
    for node in helper.nodes:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name):
            if node.func.attr != "append" or len(node.args) != 1:
                return None  # extend, insert, a slice assigned...: not only appended items
            items.append(node.args[0])
    found = [index.type_of(item, helper) for item in items]
    if not found or any(t is None or t != found[0] for t in found):
        return None
    return found[0]


def _is_empty_list(value: ast.expr | None) -> bool:
    return (isinstance(value, ast.List) and not value.elts) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"
        and not value.args and not value.keywords)
