"""Statements that follow a ``return``, ``raise``, ``continue`` or ``break`` in the same block: they never run.

Each of these statements leaves its block for good ("return leaves the current function call", "raise ... the
exception is raised", "continue continues with the next cycle of the nearest enclosing loop", "break terminates the
nearest enclosing loop", https://docs.python.org/3/reference/simple_stmts.html), so the statements written after it
in the same body are dead code. Command handlers keep an old implementation below an early ``return`` "for
reference" (held-out wave 81: a Matrix bot's ``stats`` command answers "no longer supported" and returns; its
sqlite3 queries below never run). :func:`dead_statements` lists them for a statement's own bodies (``body``,
``orelse``, ``finalbody``, a ``case``'s or an ``except``'s body); the calls in them are not walked by
:class:`~faultlib.detect.serving.blocking.body_calls.BodyCalls`.
"""

from __future__ import annotations

import ast

__all__ = ["EXITS", "dead_statements", "live_prefix"]

EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
"""Statements after which nothing in the same block runs."""
_BODIES = ("body", "orelse", "finalbody")


def live_prefix(statements: list[ast.stmt]) -> list[ast.stmt]:
    """``statements`` up to and including the first exit statement (all of them when there is none)."""
    for i, statement in enumerate(statements):
        if isinstance(statement, EXITS):
            return statements[:i + 1]
    return statements


def dead_statements(node: ast.AST) -> set[int]:
    """The ``id`` of each statement in ``node``'s own bodies that follows an exit statement of that body."""
    dead: set[int] = set()
    for field in _BODIES:
        body = getattr(node, field, None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            dead.update(id(s) for s in body[len(live_prefix(body)):])
    return dead
