"""A name tested with ``isinstance(name, T)`` holds a ``T`` inside that ``if``'s body (type narrowing, PEP 647's
plain case): ``for part in parts: if isinstance(part, UploadFile): part.file.read()`` reads the upload's spooled
file on the spot, whatever ``parts`` was. Only one class (not a tuple of classes), only the body (not the ``else``),
and only while the body does not rebind the name. Used by :mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Type

__all__ = ["narrowed"]


def narrowed(index, name: ast.Name, func: Func) -> Type | None:
    """The class ``name`` (a read in ``func``) is narrowed to by an enclosing ``if isinstance(name, T):``, or None."""
    table = func.__dict__.get("_faultlib_narrowed")
    if table is None:
        table = func.__dict__["_faultlib_narrowed"] = _narrowings(index, func)
    return table.get(id(name)) if table else None


def _narrowings(index, func: Func) -> dict[int, Type]:
    own = None
    found: dict[int, Type] = {}
    for node in func.nodes:
        test = node.test if isinstance(node, ast.If) else None
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name)
                and isinstance(test.args[1], (ast.Name, ast.Attribute))):
            continue
        subject = test.args[0].id
        inner = [n for stmt in node.body for n in ast.walk(stmt)]
        if any(isinstance(n, ast.Name) and n.id == subject and not isinstance(n.ctx, ast.Load) for n in inner):
            continue  # rebound in the body: what it holds afterwards is another question
        klass = index.annotation_type(test.args[1], func.module)
        if klass is None:
            continue
        own = own if own is not None else {id(n) for n in func.nodes}
        found.update((id(n), klass) for n in inner if isinstance(n, ast.Name) and n.id == subject and id(n) in own)
    return found
