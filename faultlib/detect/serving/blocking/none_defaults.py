"""A local that starts as ``None`` and is replaced only on some paths: for an "unset" condition it may be unset.

The vocabulary's ``unset`` test (:class:`~faultlib.detect.serving.blocking.entries.BlocksWhen`) says a call blocks
when an argument is left false (``bigquery.Client(credentials=None)`` resolves Application Default Credentials over
the disk and the metadata server; ``pc.Index(name)`` without ``host`` looks it up over HTTP), and takes any variable
for a set value. A common shape is the optional value prepared before the call::

    credentials = None
    if key_file:
        credentials = load(key_file)
    client = Client(credentials=credentials)

Here the name is bound to the literal ``None`` by a statement of the function's own body (not inside a branch), and
every other binding of it sits inside a compound statement (an ``if``, a ``try``, a loop), so on the path where none
of those run, the call gets ``None``: the call blocks on that path and is reported (the analysis does not follow which
binding reaches the call; the ``None`` start is the one that always runs). A parameter, a name bound at the top level to
anything else after the ``None``, or a name bound only to other values keeps the variable's verdict (set).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["none_default"]

NONE = ast.Constant(value=None)


def none_default(expr: ast.expr, func: Func) -> ast.expr:
    """``None`` (a constant) when ``expr`` is a local name of ``func`` that may still hold its ``None`` start (see
    the module docstring), else ``expr``."""
    if not isinstance(expr, ast.Name):
        return expr
    params = getattr(func.node, "args", None)
    if not isinstance(params, ast.arguments) or expr.id in {
            a.arg for a in (*params.posonlyargs, *params.args, *params.kwonlyargs)}:
        return expr  # a parameter (or a scope without a body of its own): the caller's value
    started = False
    for statement in func.node.body:  # the function's own statements, in order
        value = _bound_value(statement, expr.id)
        if value is _NOT_BOUND:
            continue
        if isinstance(value, ast.Constant) and value.value is None:
            started = True
        else:
            started = False  # rebound on every path after the None start
    return NONE if started else expr


_NOT_BOUND = object()


def _bound_value(statement: ast.stmt, name: str):
    """What a top-level ``statement`` binds ``name`` to (its value expression, or ``...`` when it binds it some other
    way), or ``_NOT_BOUND``; a binding nested in a compound statement is not top-level and does not count."""
    if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
        return statement.value
    if (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            and statement.target.id == name and statement.value is not None):
        return statement.value
    if isinstance(statement, (ast.AugAssign, ast.With, ast.For)) and any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
            for n in ast.walk(statement.target if isinstance(statement, (ast.AugAssign, ast.For))
                              else ast.Tuple(elts=[i.optional_vars for i in statement.items if i.optional_vars],
                                             ctx=ast.Store()))):
        return ...
    return _NOT_BOUND
