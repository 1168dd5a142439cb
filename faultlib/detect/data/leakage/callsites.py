"""Where a loop's own code reaches a test score computed in a helper, for ``tuned_on_test``.

A search loop (a ``for`` over candidates, an optuna objective: :mod:`.objectives`) often scores each candidate
through a helper: ``metrics = train_and_score(name, params, X_tr, y_tr, X_te, y_te)`` inside the objective, the
``predict`` on the test rows inside ``train_and_score``. The helper alone chooses nothing (another caller may score
once); the choice is the objective's, at its line that called the helper (the optimizer's loop is nowhere in the
source; the objective is its body). :func:`loop_site` gives that line (the innermost call line of the running
calls that lies in the objective) and :func:`function_at` the function it is in, so the finding points at the
objective's code and names the function the reader opens. A ``for`` loop that calls a scoring helper keeps the
finding at the helper's score, as before.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def loop_site(tree: ast.Module, score_line: int, call_lines: list[int], start: int, end: int) -> int:
    """The line inside ``start..end`` (an objective's lines: a function that starts on ``start``) where the score
    on ``score_line`` happens: ``score_line`` itself when the objective's own code scores, else the innermost call
    (of ``call_lines``, outermost first) that lies in it; ``score_line`` when none does, and for a ``for`` loop
    (a helper a loop calls to score each candidate, ``test_score(model)``, is reported where it scores: the loop's
    call of it is plain to see beside it)."""
    if start <= score_line <= end or not any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno == start for n in walk_once(tree)):
        return score_line
    return next((ln for ln in reversed(call_lines) if start <= ln <= end), score_line)


def function_at(tree: ast.Module, line: int) -> str:
    """The qualified name (``Tuner.objective``, ``outer.inner``) of the innermost function whose lines hold
    ``line``; ``'<module>'`` at top level."""
    names: list[str] = []
    body = tree.body
    while True:
        inner = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.lineno <= line <= (n.end_lineno or n.lineno)), None)
        if inner is None:
            break
        names.append(inner.name)
        body = inner.body
    while names and not _is_function(tree, names):
        names.pop()  # a class body's line: the function is the one around the class
    return ".".join(names) or "<module>"


def _is_function(tree: ast.Module, names: list[str]) -> bool:
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for name in names:
        node = next((n for n in body if getattr(n, "name", None) == name), None)
        body = getattr(node, "body", [])
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))


__all__ = ["function_at", "loop_site"]
