"""``with helper(...) as x`` over an unannotated ``@contextmanager`` generator of the analysed files: ``x`` is what
the generator yields.

``contextlib.contextmanager`` runs the generator up to its ``yield`` on ``__enter__`` and "the value yielded is
bound to the variable in the with statement's as clause, if any"
(https://docs.python.org/3/library/contextlib.html#contextlib.contextmanager). A helper that opens a cursor and
yields it (``cur = conn.cursor(); try: yield cur; finally: cur.close()``) hands its caller that cursor, typed as
the generator types it. Used by :meth:`~faultlib.detect.serving.blocking.generics.Generics.bound_by_with` when the
generator's annotation says nothing; every ``yield`` with a value must agree.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Type, dotted, nodes_of


def managed_yield(index, func: Func) -> Type | None:
    """The type of the value the ``@contextmanager`` generator ``func`` yields, when it has one and its yields
    agree; None for any other function."""
    if not any((dotted(d) or [""])[-1] == "contextmanager" for d in func.node.decorator_list):
        return None
    found = [index.type_of(node.value, func) for node in nodes_of(func, ast.Yield) if node.value is not None]
    if not found or any(f is None for f in found) or any(f is not found[0] and f != found[0] for f in found):
        return None
    return found[0]
