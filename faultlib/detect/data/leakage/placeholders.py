"""Guard clauses that hand back a placeholder, for the static leakage analysis.

A defensive helper often begins with a guard clause, an early exit for input it cannot work on (Fowler,
*Refactoring*, "Replace Nested Conditional with Guard Clauses"), and hands back an empty value built from literals
only::

    def make_features(df, cut):
        if df.empty:
            return pd.DataFrame(columns=["date", "sales"])
        scaler = MinMaxScaler()
        ...

The test is unknown to the analysis, so the ``return`` would end the function and hide the fits below it. A value
built from literals alone (constants, containers of them, calls such as ``pd.DataFrame(columns=[...])`` or
``np.array([])`` whose arguments are literals, ``np.nan``) carries no rows the caller computes with: like a bare
``return None`` (:attr:`faultlib.pyflow.interp.Interpreter.follow_guard_returns`) it is a guard, and the code after
it runs. A guard that returns a name, an argument or anything computed from the data is an alternative result and
still ends the function.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.interp import guard_exit

#: attribute names that spell a missing value (``np.nan``, ``pd.NA``, ``pd.NaT``, ``math.inf``)
_MISSING = frozenset({"nan", "NaN", "NA", "NaT", "inf"})


def _callee(node: ast.expr) -> bool:
    """``DataFrame``, ``pd.DataFrame``, ``np.array``: a dotted name."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def placeholder(node: ast.expr | None) -> bool:
    """``node`` is built from literals only (see the module docstring)."""
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return placeholder(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(placeholder(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and placeholder(k) and placeholder(v) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Attribute):
        return node.attr in _MISSING and _callee(node)
    if isinstance(node, ast.Call):
        return _callee(node.func) and all(placeholder(a) for a in node.args) and all(
            k.arg is not None and placeholder(k.value) for k in node.keywords)
    return False


class PlaceholderGuards:
    """A guard clause that returns a placeholder does not end the function (see the module docstring)."""

    def _guard_exit(self, body: list[ast.stmt]) -> bool:
        if guard_exit(body):
            return True
        last = body[-1] if body else None
        return isinstance(last, ast.Return) and placeholder(last.value) and not any(
            isinstance(n, ast.Return) for stmt in body[:-1] for n in ast.walk(stmt))
