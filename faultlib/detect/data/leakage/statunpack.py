"""A statistic unpacked into names, for the static leakage analysis.

``lo, hi = df["ret"].quantile([0.005, 0.995])`` (then ``df["ret"].clip(lo, hi)``) takes two quantiles of the rows
in one call and unpacks the result: pandas returns a Series of the two quantiles (pandas API reference,
``Series.quantile``: "If q is an array, a Series will be returned"), and Python's assignment to a target list binds
each name to one item of it (Python language reference, 7.2 "Assignment statements"). Each item is a statistic
of the same rows, exactly as ``lo = df["ret"].quantile(0.005)`` written alone; so are ``q1, q3 =
np.percentile(x, [25, 75])``, ``low, high = s.agg(["min", "max"])`` and ``mu, sigma = x.mean(), x.std()``. The
interpreter bound every name of an unpacked unknown value to nothing known, so the clipping bounds lost their
fit and a winsorisation over the whole history before a time split went unseen (issue 17 wave 84: a stock
pipeline's heavy-tailed returns clipped at the 0.5%/99.5% quantiles of every day).

:class:`StatisticUnpacking` binds each name of such a target list to the statistic (its fits, no rows). A table
unpacked (rows known: ``a, b = np.array_split(df, 2)``) is left to the interpreter and to :mod:`.blocks`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data

#: reductions whose one call returns several statistics of the same rows (a list of quantiles, ``agg([...])``)
UNPACKED_REDUCTIONS = vocab.STATISTICS | {"agg", "aggregate", "nanquantile"}


def _statistic_call(node: ast.expr | None) -> bool:
    """``s.quantile([a, b])`` / ``np.percentile(x, [25, 75])`` / ``s.agg(["min", "max"])``: one reduction call."""
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and (
        node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in UNPACKED_REDUCTIONS


class StatisticUnpacking:
    """``lo, hi = s.quantile([a, b])``: every name is the statistic (see the module docstring). Only an assignment
    whose value is one reduction call counts: ``a, b, c = [scaler.transform(d) for d in parts]`` unpacks tables,
    whose rows the interpreter keeps."""

    _unpacked_from: ast.expr | None = None

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        outer = self._unpacked_from
        self._unpacked_from = node.value if isinstance(node, ast.Assign) else None
        try:
            super()._stmt(node, frame)  # type: ignore[misc]
        finally:
            self._unpacked_from = outer

    def _bind(self, target: ast.expr, value: Any, frame: Any, line: int) -> None:
        if type(value) is Data and value.rows is None and value.taints and isinstance(
                target, (ast.Tuple, ast.List)) and target.elts and not any(
                isinstance(e, ast.Starred) for e in target.elts) and _statistic_call(self._unpacked_from):
            for elt in target.elts:
                self._bind(elt, Data(None, value.taints, False), frame, line)
            return
        super()._bind(target, value, frame, line)  # type: ignore[misc]


__all__ = ["StatisticUnpacking"]
