"""A name tested with ``isinstance(name, T)`` holds a ``T`` where the test has passed (type narrowing, PEP 647's
plain case): inside an ``if isinstance(...)``'s body, and after an ``assert isinstance(...)`` in the rest of the
block that holds the ``assert``. ``for part in parts: if isinstance(part, UploadFile): part.file.read()`` reads the
upload's spooled file on the spot, whatever ``parts`` was; ``assert isinstance(instance.db, Engine)`` followed by
``instance.db.execute(q)`` runs a query on a SQLAlchemy ``Engine``, whatever else ``instance.db`` is annotated as.
The subject is a local name or a dotted attribute (``self.db``, ``instance.db``). Only one class (not a tuple of
classes), not the ``else``, and only while the narrowed code does not rebind the subject; ``assert x is None or
isinstance(x, T)`` narrows ``x`` to ``T`` as well. Used by
:mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Type, dotted, nodes_of

__all__ = ["narrowed"]

_BLOCKS = ("body", "orelse", "finalbody")


def narrowed(index, name: ast.Name | ast.Attribute, func: Func) -> Type | None:
    """The class ``name`` (a read in ``func``) is narrowed to by an enclosing ``if isinstance(name, T):`` or an
    earlier ``assert isinstance(name, T)`` of its block, or None."""
    table = func.__dict__.get("_faultlib_narrowed")
    if table is None:
        table = func.__dict__["_faultlib_narrowed"] = _narrowings(index, func)
    return table.get(id(name)) if table else None


def _subject(node: ast.AST) -> str | None:
    """The dotted name of a ``Name`` or an attribute chain of names (``instance.db``), or None."""
    return ".".join(dotted(node) or []) or None


def _narrowings(index, func: Func) -> dict[int, Type]:
    own = None
    found: dict[int, Type] = {}
    for node in nodes_of(func, (ast.If, ast.Assert)):
        test = node.test if isinstance(node, ast.If) else _optional(node.test)
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
                and len(test.args) == 2 and _subject(test.args[0]) is not None
                and isinstance(test.args[1], (ast.Name, ast.Attribute))):
            continue
        subject = _subject(test.args[0])
        scope = node.body if isinstance(node, ast.If) else _after(node, func)
        inner = [n for stmt in scope for n in ast.walk(stmt)]
        if any(_subject(n) == subject and not isinstance(n.ctx, ast.Load) for n in inner
               if isinstance(n, (ast.Name, ast.Attribute))):
            continue  # rebound in the body: what it holds afterwards is another question
        klass = index.annotation_type(test.args[1], func.module)
        if klass is None:
            continue
        own = own if own is not None else {id(n) for n in func.nodes}
        found.update((id(n), klass) for n in inner if isinstance(n, (ast.Name, ast.Attribute))
                     and isinstance(n.ctx, ast.Load) and id(n) in own and _subject(n) == subject)
    return found


def _optional(test: ast.expr) -> ast.expr:
    """The ``isinstance`` call of ``assert x is None or isinstance(x, T)`` (an optional ``T``: where the code goes on
    to use ``x`` it is a ``T``; held-out wave 49, datasette's ``config_dir``), else ``test`` itself."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and len(test.values) == 2):
        return test
    none, check = test.values
    if (isinstance(none, ast.Compare) and len(none.ops) == 1 and isinstance(none.ops[0], ast.Is)
            and isinstance(none.comparators[0], ast.Constant) and none.comparators[0].value is None
            and isinstance(check, ast.Call) and check.args and _subject(none.left) == _subject(check.args[0])):
        return check
    return test


def _after(statement: ast.stmt, func: Func) -> list[ast.stmt]:
    """The statements that follow ``statement`` in the block that holds it."""
    for holder in (func.node, *func.nodes):
        for field in _BLOCKS:
            block = getattr(holder, field, None)
            if isinstance(block, list) and any(s is statement for s in block):
                return block[[id(s) for s in block].index(id(statement)) + 1:]
    return []
