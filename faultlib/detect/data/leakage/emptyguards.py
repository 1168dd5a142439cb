"""An early return for an empty input (``if not cols: return df``) is a guard, for the static leakage analysis.

A feature step that works column by column often starts by picking its columns and handing the table back
untouched when there are none::

    def add_tfidf(self, df):
        out = df.copy()
        cols = [c for c in df.columns if c.endswith('_text')]
        if not cols:
            return out
        for c in cols:
            vec = TfidfVectorizer().fit(df[c])
            ...

Which columns a table has is unknown to a static reading, so the test is unknown; read as an alternative result,
its ``return`` ended the function and the fits after it were never seen (wave 82: a TF-IDF refitted per column in
a method also run on the test table went unreported). The test asks whether a collection is **empty** (Python
Language Reference 3.x, "Truth value testing": an empty sequence or collection is false; ``len(x) == 0``;
pandas ``DataFrame.empty``), and the branch hands back a name or a constant and nothing computed in it: the
"nothing to do" exit of a step, not the step's result. The code after it runs as for any guard
(:attr:`faultlib.pyflow.interp.Interpreter.follow_guard_returns`).

Not a guard here: a test on anything else (a flag, a mode, ``if is_test: return df``: which branch runs is the
point), a branch with an ``else``, a branch that returns more than once or returns a computed value.
"""

from __future__ import annotations

import ast


def _emptiness(test: ast.expr) -> bool:
    """``not xs``, ``len(xs) == 0``, ``len(xs) < 1``, ``xs.empty``, ``not len(xs)`` with ``xs`` a name or an attribute."""
    def collection(node: ast.expr) -> bool:
        return isinstance(node, (ast.Name, ast.Attribute))

    def length(node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
            len(node.args) == 1 and collection(node.args[0])

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return collection(test.operand) and not isinstance(test.operand, ast.Attribute) or length(test.operand)
    if isinstance(test, ast.Attribute):
        return test.attr == "empty" and collection(test.value)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and length(test.left):
        bound = test.comparators[0]
        if not (isinstance(bound, ast.Constant) and isinstance(bound.value, int)):
            return False
        return isinstance(test.ops[0], ast.Eq) and bound.value == 0 or isinstance(test.ops[0], ast.Lt) and \
            bound.value == 1 or isinstance(test.ops[0], ast.LtE) and bound.value == 0
    return False


def empty_input_guard(node: ast.If) -> bool:
    """``node`` tests a collection for emptiness, has no ``else``, and its body ends in its only ``return``, of a name
    or a constant (see the module docstring)."""
    if node.orelse or not node.body or not _emptiness(node.test):
        return False
    last = node.body[-1]
    if not isinstance(last, ast.Return) or any(isinstance(n, ast.Return) for s in node.body[:-1] for n in ast.walk(s)):
        return False
    return last.value is None or isinstance(last.value, (ast.Name, ast.Constant))


class EmptyInputGuards:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: the interpreter's guard hook."""

    def _guard_follows(self, node: ast.If) -> bool | None:
        if empty_input_guard(node):
            return True
        return super()._guard_follows(node)  # type: ignore[misc]


__all__ = ["EmptyInputGuards", "empty_input_guard"]
