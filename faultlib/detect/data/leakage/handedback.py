"""Whether a split's test part is used after the split, or only shown and handed back to a caller that drops it.

:mod:`.unscored` keeps a library transformer fitted before a ``train_test_split`` an alarm in a file that shows no
model when the file reads the split's test part again (a preprocessing template whose model lives in the next
lesson). A read that only displays the part (``print(X_test.shape)``, ``logger.info(np.unique(y_test,
return_counts=True))``) or returns it from a helper the file itself calls, whose callers bind the result to names
they never read again, uses no held-out row: wave 63 (a microarray preprocessing module) imputed and filtered the
genes of every sample, split them in ``create_train_test_split`` (which logs the class counts of each part and
returns them), and its only caller, an ``example_usage`` run under ``__main__``, returned the parts to names
nothing read. Such a split reaches no model; its fits stay ``info`` as any fit whose output reaches none does.

Kept as uses: any other read (a transform, a fit, a score, an assignment, an argument of a call that is not a display
call); a return from a function the file never calls (a helper module's API: its importers may score the part);
a return to a caller that reads the names it binds, or that does anything but bind the result to plain names.
Display calls are ``print`` and the logging calls (Python documentation, ``logging``: ``debug``, ``info``,
``warning``, ``error``, ``critical``, ``exception``, ``log`` of a logger or of the module).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: logging methods (of ``logging`` or a ``Logger``) whose arguments are only displayed
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})
#: how many callers back a returned test part is followed
DEPTH = 3


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in walk_once(tree) for child in ast.iter_child_nodes(node)}


def _displayed(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``node`` sits inside the arguments of ``print(...)`` or of a logging call (``logger.info(...)``)."""
    cur = parents.get(id(node))
    while cur is not None and not isinstance(cur, ast.stmt):
        if isinstance(cur, ast.Call):
            func = cur.func
            if isinstance(func, ast.Name) and func.id == "print" or \
                    isinstance(func, ast.Attribute) and func.attr in LOG_METHODS and isinstance(func.value, ast.Name):
                return True
        cur = parents.get(id(cur))
    return False


def _returned_from(node: ast.AST, parents: dict[int, ast.AST]) -> tuple[ast.FunctionDef, int | None] | None:
    """The function whose ``return`` gives ``node`` back (itself, or as item ``i`` of a returned tuple)."""
    cur, item = parents.get(id(node)), None
    if isinstance(cur, ast.Tuple):
        item = next(i for i, e in enumerate(cur.elts) if e is node)
        cur = parents.get(id(cur))
    if not isinstance(cur, ast.Return):
        return None
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
        cur = parents.get(id(cur))
    return (cur, item) if cur is not None else None  # type: ignore[return-value]


def _calls_of(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in walk_once(tree) if isinstance(n, ast.Call) and (
        isinstance(n.func, ast.Name) and n.func.id == name or isinstance(n.func, ast.Attribute) and n.func.attr == name)]


def used_after(tree: ast.AST, names: set[str], end: int, depth: int = 0) -> bool:
    """Whether one of ``names`` is read after line ``end`` other than to be displayed or handed back to callers that
    drop it (see the module docstring)."""
    parents = _parents(tree)
    for n in walk_once(tree):
        if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and n.lineno > end):
            continue
        if _displayed(n, parents):
            continue
        back = _returned_from(n, parents)
        if back is None or depth >= DEPTH or _caller_uses(tree, back, parents, depth):
            return True
    return False


def _caller_uses(tree: ast.AST, back: tuple[ast.FunctionDef, int | None], parents: dict[int, ast.AST],
                 depth: int) -> bool:
    func, item = back
    calls = _calls_of(tree, func.name)
    if not calls:
        return True  # a helper the file never calls: its importers get the part
    for call in calls:
        stmt = parents.get(id(call))
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return True
        target = stmt.targets[0]
        if isinstance(target, ast.Name):
            bound = {target.id}
        elif isinstance(target, (ast.Tuple, ast.List)) and item is not None and item < len(target.elts) and \
                isinstance(target.elts[item], ast.Name):
            bound = {target.elts[item].id}  # type: ignore[attr-defined]
        else:
            return True
        if used_after(tree, bound, stmt.end_lineno or stmt.lineno, depth + 1):
            return True
    return False


__all__ = ["DEPTH", "LOG_METHODS", "used_after"]
