"""The best of collected scores picked by a later loop written by hand, for the static leakage analysis.

:mod:`.choices` reads a loop that scores each candidate and keeps its scores (``scores.append(model.score(X_test,
y_test))``); the choice may come later, often in another notebook cell, as a running best over the list::

    for i, name in enumerate(names):          # a later loop, over the candidates' names or positions
        if scores[i] > best:                  # the collected test scores decide ...
            best, best_name = scores[i], name # ... which candidate is announced as the best

It is the same choice as ``max(scores)`` or ``np.argmax(scores)`` (:data:`.choices._CHOOSERS`), written as the
comparison that guards the assignment (an implicit flow: Denning & Denning, "Certification of programs for secure
information flow", CACM 20(7), 1977; the reported best is the maximum of several test scores, ASE'22's multi-test
leakage). Wave 67: three pipelines scored on the test rows in one cell, the best announced from the list in a
later cell.

:func:`later_running_best` gives the line of the first such ``if`` inside a ``for`` loop after the scoring loop
(within :data:`WITHIN` lines), whose order comparison reads a kept name and whose branches bind a name; guards on a
counter or a size are no choice (:mod:`.guards`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from faultlib.detect.data.leakage.guards import branches, counter_guard, size_guard

#: how far after the scoring loop (lines; notebook cells joined) the running best may be taken
WITHIN = 60
_ORDERS = (ast.Gt, ast.Lt, ast.GtE, ast.LtE)


def later_running_best(loops: list[ast.For], kept: set[str], end: int, counted: frozenset[str],
                       names: Callable[[ast.AST], set[str]]) -> int:
    """The line of an ``if score[i] > best: best = ...`` in a ``for`` loop starting after ``end`` that compares a
    name in ``kept`` (the scores a loop collected); 0 when there is none."""
    for loop in loops:
        if not end < loop.lineno <= end + WITHIN:
            continue
        for n in (n for stmt in loop.body for n in ast.walk(stmt)):
            if isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and any(
                    isinstance(op, _ORDERS) for op in n.test.ops) and kept & names(n.test) and any(
                    isinstance(s, (ast.Assign, ast.AugAssign)) for s in branches(n)) and \
                    not counter_guard(n.test, counted) and not size_guard(n.test):
                return n.lineno
    return 0


__all__ = ["WITHIN", "later_running_best"]
