"""The arguments a nested function receives when its enclosing function hands it to another function of the analysed
files as a callback: ``self.run_with_connection(query_in_thread)`` where ``run_with_connection(self, fn)`` calls
``fn(self._conn)``: ``query_in_thread``'s first parameter is that connection.

Libraries that own a resource often run the caller's function with it (datasette's ``Database.execute_fn(fn)``
calls ``fn(conn)`` with its SQLite connection, on the loop in its non-threaded mode; held-out wave 49), so the
statements of the callback act on the resource the receiving function passes. The receiving function is resolved
as any call is; its parameter that gets the callback is found by position or keyword, and each call of that
parameter inside it gives one typed argument. Used by :meth:`~faultlib.detect.serving.blocking.infer.Inference.
_from_parent_calls` (a nested def's parameters).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, _is_static

__all__ = ["handed_arguments"]

MAX_HANDOFFS = 8
"""How many calls that hand the callback over one lookup reads at most."""


def handed_arguments(index, func: Func, position: int) -> list:
    """The types of the arguments at ``position`` that the functions ``func`` (a nested def) is handed to pass when
    they call it (see the module docstring)."""
    parent, found, handoffs = func.parent, [], 0
    for node in parent.nodes:
        if not isinstance(node, ast.Call) or handoffs >= MAX_HANDOFFS:
            continue
        slot = _slot(node, func.node.name)
        if slot is None:
            continue
        handoffs += 1
        receiver = index.callee(node.func, parent)
        if not isinstance(receiver, Func):
            continue
        params = [a.arg for a in [*receiver.node.args.posonlyargs, *receiver.node.args.args]]
        skip = 1 if receiver.cls is not None and not _is_static(receiver.node) and isinstance(node.func,
                                                                                         ast.Attribute) else 0
        name = slot if isinstance(slot, str) else (params[slot + skip] if slot + skip < len(params) else None)
        for call in receiver.nodes:
            if (name is not None and isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == name and position < len(call.args)):
                typed = index.type_of(call.args[position], receiver)
                if typed is not None:
                    found.append(typed)
    return found


def _slot(call: ast.Call, name: str) -> int | str | None:
    """Where ``call`` passes the function called ``name``: its position, its keyword, or None."""
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == name:
            return i
    return next((k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == name and k.arg),
                None)
