"""A dict a function builds in a local and fills by key: ``jobs = {}`` then ``jobs["api"] = Process(...)``.

What ``jobs.get("api")``, ``jobs["api"]`` or ``for p in jobs.values()`` hands back further down the same function is
one of the values stored there (a ``dict`` maps each key to the last value stored under it:
https://docs.python.org/3/library/stdtypes.html#mapping-types-dict). :func:`local_dict_stores` lists those stores for
:meth:`~faultlib.detect.serving.blocking.stores.Stores.stored_element`, which types the element when they agree. Only
a local bound once, to a dict display or ``dict()``, counts: a parameter or a rebound name may hold anything.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["local_dict_stores"]


def local_dict_stores(func: Func, name: str) -> list[tuple[ast.expr | None, ast.expr, Func]]:
    """``(key, value, func)`` of every ``name[key] = value`` (and every entry of the display ``name`` is bound to)
    in ``func``, when ``name`` is a local of ``func`` bound once, to a dict."""
    assigns = nodes_of(func, ast.Assign)  # the function's table by kind, in order: no pass over every node
    bindings = [n for n in assigns if any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if len(bindings) != 1 or not _is_dict(bindings[0].value):
        return []
    display = bindings[0].value
    found = list(zip(display.keys, display.values, [func] * len(display.keys))) if isinstance(display, ast.Dict) \
        else []
    for node in assigns:
        found += [(t.slice, node.value, func) for t in node.targets if isinstance(t, ast.Subscript)
                  and isinstance(t.value, ast.Name) and t.value.id == name]
    return found


def _is_dict(value: ast.expr) -> bool:
    return isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                           and value.func.id == "dict" and not value.args and not value.keywords)
