"""A value a decorator's wrapper makes and hands to the decorated function as a leading positional argument.

A session decorator opens a session, calls the function with it, then commits or rolls back::

    def with_session(f):
        @wraps(f)
        def wrapper(*args, **kwargs):
            with session_scope() as session:
                return f(session, *args, **kwargs)
        return wrapper

    @with_session
    def list_items(session, owner):
        return session.query(Item).filter_by(owner=owner).all()

Calling ``list_items(owner)`` runs ``wrapper``, which calls the original ``list_items`` with ``session`` in the
first place (Python's decorator semantics: https://docs.python.org/3/reference/compound_stmts.html#function-
definitions, the name is bound to what the decorator returns). The decorated function's parameter at that place
holds the value the wrapper passed: the type of ``session`` in the wrapper is the type of the decorated function's
``session``. The call taken is one of the wrapped function (the decorator's first parameter) whose leading
arguments, before the first ``*args``, are the wrapper's own values; a wrapper that only forwards ``*args``
supplies nothing. Used by :meth:`~faultlib.detect.serving.blocking.infer.Inference.parameter`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["leading_arguments"]


def leading_arguments(wrapper: Func, position: int) -> list[ast.expr]:
    """The expressions ``wrapper`` passes in place ``position`` of its calls of the wrapped function (the
    enclosing decorator's first parameter), when that place comes before any ``*args``."""
    wrapped = _wrapped_name(wrapper)
    if wrapped is None:
        return []
    out = []
    for node in wrapper.nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == wrapped):
            continue
        leading = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                break
            leading.append(arg)
        if position < len(leading):
            out.append(leading[position])
    return out


def _wrapped_name(wrapper: Func) -> str | None:
    """The name the wrapped function has in the wrapper: the first parameter of the decorator around it."""
    decorator = wrapper.parent
    if not isinstance(decorator, Func):
        return None
    args = [*decorator.node.args.posonlyargs, *decorator.node.args.args]
    return args[0].arg if args else None
