"""A statistic of another table inside a function handed to ``map`` or ``apply``, for the static leakage analysis.

``s.map(lambda x: pd.concat([train['g'], test['g']]).value_counts()[x])`` looks each value up in counts taken over
a table the function closes over, not over its own argument: the same feature as
``s.map(pd.concat([train['g'], test['g']]).value_counts())``, a count over train and test stacked (the house policy
for counts over the stack since stop 30; Kaufman et al., "Leakage in data mining", TKDD 2012, section 2). Python
evaluates a lambda's body each time it is called, in the scope it was written in (Python language reference,
"Lambdas"), so the body is read here once in the enclosing frame with its parameters unknown; a statistic it takes
is a fit whose output becomes the mapped column. Only bodies that reduce a table named without the lambda's own
parameters are read (``lambda x: x / x.max()``, a statistic of the argument itself, is left to
:mod:`faultlib.detect.data.leakage.design`); a threshold (``lambda x: x > df['a'].mean()``) makes a flag, as a
comparison elsewhere does: a body that compares is not read.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.counts import COUNTS
from faultlib.detect.data.leakage.values import maybe_data
from faultlib.pyflow.interp import Frame
from faultlib.pyflow.values import UNKNOWN

#: the methods whose function argument is called on each value, row or column of the receiver (pandas API)
_ELEMENTWISE = frozenset({"map", "apply"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def closed_over_reduction(node: ast.expr) -> bool:
    """``lambda x: <table>.value_counts()[x]``, ``lambda x: x / <table>['c'].max()``: a lambda whose body reduces a
    table named without its own parameters (a count or a statistic of rows it closes over)."""
    if not isinstance(node, ast.Lambda) or not node.args.args:
        return False
    params = {a.arg for a in node.args.args}
    if any(isinstance(n, ast.Compare) for n in ast.walk(node.body)):
        return False  # a threshold or a test: a flag, not the statistic's value
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and (
        n.func.attr in vocab.STATISTICS or n.func.attr in COUNTS) and _names(n.func.value) and
        not _names(n.func.value) & params for n in ast.walk(node.body))


class ClosedOverStatistics:
    """The statistics a mapped lambda takes of the tables it closes over (see the module docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        out = super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]
        if name not in _ELEMENTWISE or not node.args or not closed_over_reduction(node.args[0]):
            return out
        lam = node.args[0]
        inner = Frame({**frame.locals, **{a.arg: UNKNOWN for a in lam.args.args}}, frame.qualname, frame.loops)
        body = maybe_data(self._expr(lam.body, inner))  # type: ignore[attr-defined]
        fits = frozenset(f for f in body.taints if f.handwritten) if body is not None else frozenset()
        data = maybe_data(out)
        if not fits or data is None:
            return out
        return data.with_(taints=data.taints | fits)


__all__ = ["ClosedOverStatistics", "closed_over_reduction"]
