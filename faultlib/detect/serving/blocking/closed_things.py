"""What ``with contextlib.closing(thing) as x`` binds: ``thing`` itself.

``closing(thing)`` is a context manager whose ``__enter__`` returns the object it wraps and whose ``__exit__`` calls
its ``close()`` ("Return a context manager that closes thing upon completion of the block ... ``with closing(<module>
.open(<arguments>)) as thing``", https://docs.python.org/3/library/contextlib.html#contextlib.closing); ``aclosing``
is the same for ``async with`` and ``aclose()``. So ``with closing(self.database.cursor()) as cursor`` binds the
cursor, and ``cursor.execute(...)`` is the driver's call (held-out wave 81: a Matrix bot reading its room settings
from sqlite3 through ``closing(self.database.cursor())`` in every coroutine that answers a message). Used by
:meth:`~faultlib.detect.serving.blocking.generics.Generics.bound_by_with` and by
:mod:`~faultlib.detect.serving.blocking.untyped_cursors`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["closed_thing"]

WRAPPERS = {False: "contextlib.closing", True: "contextlib.aclosing"}
"""The wrapper a plain ``with`` (False) and an ``async with`` (True) enter to bind the object they close."""


def closed_thing(index, expr: ast.expr, func: Func, asynchronous: bool = False) -> ast.expr | None:
    """The wrapped expression when ``expr`` is ``closing(thing)`` (``aclosing(thing)`` for ``asynchronous``), else
    None."""
    if not (isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords):
        return None
    if isinstance(expr.args[0], ast.Starred):
        return None
    return expr.args[0] if index.callee(expr.func, func) == WRAPPERS[asynchronous] else None
