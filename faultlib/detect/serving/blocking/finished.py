"""A wait on a thread or process the code has already seen end: ``t.join()`` right after a loop that only ends
once ``t.is_alive()`` is false returns at once (https://docs.python.org/3/library/threading.html#threading.Thread.join:
"block the calling thread until the thread whose join() method is called terminates"). Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the ``join`` of ``threading.Thread`` and
``multiprocessing.Process``.

The loop is the statement just before the ``join`` in the same block, and either ``while t.is_alive(): ...``
with no ``break`` of its own, or ``while True: ...`` whose every own ``break`` is the whole body of an
``if not t.is_alive():``. Anything else (a loop with another exit, a ``join`` further down, another object's
``is_alive``) leaves the ``join`` a wait.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["joins_finished"]


def joins_finished(call: ast.Call, func: Func) -> bool:
    """``call`` is ``t.join()`` and the statement before it is a loop that ends only once ``t`` is dead."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "join"):
        return False
    name = dotted(call.func.value)
    loop = _previous(call, func.node)
    return bool(name) and isinstance(loop, ast.While) and _ends_when_dead(loop, name)


def _previous(call: ast.Call, root: ast.AST) -> ast.stmt | None:
    """The statement before the expression statement ``call`` in its block (None when first, or not a statement)."""
    for node in ast.walk(root):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if isinstance(stmt, ast.Expr) and stmt.value is call:
                    return block[i - 1] if i else None
    return None


def _is_alive(expr: ast.expr, name: list[str]) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "is_alive"
            and dotted(expr.func.value) == name and not expr.args)


def _own_breaks(loop: ast.While) -> list[tuple[ast.Break, ast.AST | None]]:
    """The loop's own ``break`` statements, each with the statement holding it directly (an ``if``) or None."""
    found: list[tuple[ast.Break, ast.AST | None]] = []

    def visit(stmts: list[ast.stmt], holder: ast.AST | None) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.Break):
                found.append((stmt, holder))
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                visit(stmt.orelse, stmt)  # a break in an inner loop's body ends that loop; its else is ours
            elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for block in _blocks(stmt):
                    visit(block, stmt)
    visit(loop.body, None)
    return found


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists directly inside ``stmt`` (an ``if``/``try``/``with``/``match``)."""
    blocks = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, f, None), list)]
    blocks += [h.body for h in getattr(stmt, "handlers", ())] + [c.body for c in getattr(stmt, "cases", ())]
    return blocks


def _ends_when_dead(loop: ast.While, name: list[str]) -> bool:
    breaks = _own_breaks(loop)
    if _is_alive(loop.test, name):
        return not breaks
    if not (isinstance(loop.test, ast.Constant) and loop.test.value is True) or not breaks:
        return False
    return all(isinstance(holder, ast.If) and holder.body == [brk] and not holder.orelse
               and isinstance(holder.test, ast.UnaryOp) and isinstance(holder.test.op, ast.Not)
               and _is_alive(holder.test.operand, name) for brk, holder in breaks)
