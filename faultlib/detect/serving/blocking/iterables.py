"""Which loop variable takes the items of which iterated value, through the builtins that pass items on unchanged.

``for page in doc`` binds ``page`` to an item of ``doc``; so do ``for i, page in enumerate(doc)``,
``for page, name in zip(doc, names)`` (position by position), and ``for page in reversed(doc)`` / ``sorted(doc)`` /
``list(doc)`` / ``tuple(doc)`` / ``iter(doc)``: the builtins yield the same objects
(https://docs.python.org/3/library/functions.html#enumerate, #zip, #reversed, #sorted). The iterated value must be
a name or an attribute (a value), or a call of a method (``for path in folder.glob("*.json")``: the method's
return type says what its items are). Used by :mod:`~faultlib.detect.serving.blocking.index` to type
loop variables from a library object's ``__iter__`` (a PyMuPDF ``Document`` yields ``Page`` objects).
"""

from __future__ import annotations

import ast

__all__ = ["iterated"]

SAME_ITEMS = frozenset({"reversed", "sorted", "list", "tuple", "iter"})


def iterated(node: ast.For | ast.comprehension) -> list[tuple[str, ast.expr]]:
    """``(loop variable, iterated value)`` pairs of a ``for``/comprehension, as the module docstring describes."""
    return _pairs(node.target, node.iter)


def _pairs(target: ast.expr, source: ast.expr) -> list[tuple[str, ast.expr]]:
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name):  # keywords (key=, start=) keep the items
        name = source.func.id
        if name in SAME_ITEMS and len(source.args) == 1:
            return _pairs(target, source.args[0])
        if name == "enumerate" and source.args and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2:
            return _pairs(target.elts[1], source.args[0])
        if name == "zip" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(source.args):
            return [pair for elt, arg in zip(target.elts, source.args) for pair in _pairs(elt, arg)]
        return []
    if isinstance(target, ast.Name) and (isinstance(source, (ast.Name, ast.Attribute)) or (
            isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute))):
        return [(target.id, source)]
    return []
