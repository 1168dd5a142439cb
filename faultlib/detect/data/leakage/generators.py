"""Whether a function is a generator: its own body yields (``yield``/``yield from``), not a nested function's.

Used by the leakage analysis where a function called on rows is inlined: ``batches(X, 128)`` of a generator yields
batches of its arguments' rows rather than returning a value.
"""

from __future__ import annotations

import ast

__all__ = ["is_generator", "yields"]

#: the attribute a ``def`` node keeps :func:`is_generator`'s answer in (not an AST field: ``compile``, ``ast.dump``
#: and the node's ``_fields`` ignore it)
_GENERATOR = "_faultlib_generator"


def is_generator(node: ast.AST) -> bool:
    """Whether ``node`` (a ``def``) yields in its own body; answered once per ``def`` node (its body does not change;
    a function called in a loop is inlined at every call)."""
    found = node.__dict__.get(_GENERATOR)
    if found is None:
        found = node.__dict__[_GENERATOR] = yields(node)
    return found


def yields(node: ast.AST) -> bool:
    """Whether ``node``'s body holds a ``yield``/``yield from`` outside nested functions, lambdas and classes (walked
    every time; :func:`is_generator` remembers it)."""
    todo = list(getattr(node, "body", []))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False
