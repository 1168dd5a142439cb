"""Counts of rows per key as a hand-written statistic, for the static leakage analysis.

``both.groupby('shop').size()``, ``.groupby(keys)[col].nunique()``, ``.transform('count')`` and
``df['city'].value_counts()`` mapped back onto the rows give each row a number computed from *other* rows: how many
rows share its key. Over rows that include held-out rows (train and test stacked, or every row before a split) that
number depends on the held-out rows, exactly as a group mean does.

Policy (issue 17, stop 33): such a count is a fit like the group mean/var/std already read as one. The issue counts
"target/mean encoding computed on all rows" among the hand-written statistics before a split, and ASE'22 (Yang et
al., "Data leakage in notebooks", Sec. 2) defines preprocessing leakage as training data transformed with
information from the test data; a frequency (count) encoding is that transform, with the row counts as what is
learnt. Reported only when the count reaches a model (the same rule as every hand-written statistic): a count
printed or plotted is a look at the data, and a single number of distinct values (``y.nunique()``: how many classes)
is no count per key, so it stays silent. A count per *id* (``groupby('id')['cell'].transform('count')``: cells per
notebook, visits per ``patient_id``; an id column as the analysis names them) is the entity's own number of rows, a
property of that entity like its other values, not a statistic learnt across entities: not a fit (whether one
entity's rows sit on both sides of a split is ``entity_across_split``'s question).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.groupvars import grouped_receiver
from faultlib.pyflow.values import UNKNOWN

#: reductions that count rows (pandas API, "GroupBy: computations", ``Series.value_counts``)
COUNTS = frozenset({"size", "count", "nunique", "value_counts"})


def counts_per_key(name: str, inner: ast.expr | None) -> bool:
    """``name`` called on ``inner`` counts rows per key: ``value_counts`` on anything, or ``size``/``count``/
    ``nunique`` on a pandas GroupBy (a ``groupby(...)`` call, maybe followed by column picks: ``[col]``, or the
    attribute ``.col`` pandas gives a GroupBy for each column)."""
    if name == "value_counts":
        return True
    if name not in COUNTS:
        return False
    while isinstance(inner, ast.Subscript) or isinstance(inner, ast.Attribute) and isinstance(
            inner.value, (ast.Call, ast.Subscript)):  # .groupby(keys)[col], .groupby(keys).col
        inner = inner.value
    return isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "groupby"


class SizeCalls:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: ``grouped.size()`` *called* is a count per
    group, while the attribute ``df.size`` (rows times columns) stays a plain number (the attribute hook cannot tell
    the two apart, the call can). A GroupBy held in a name (``grouped.size()``) counts too (:mod:`.groupvars`;
    needs the analyzer's ``_bindings``)."""

    _bindings: dict

    def _call(self, node: ast.Call, frame: Any) -> Any:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args and not node.keywords \
                and counts_per_key("size", grouped_receiver(node.func.value, self._bindings, node.lineno)):
            from faultlib.detect.data.leakage.values import Data, MaybeData

            receiver = self._expr(node.func.value, frame)
            if isinstance(receiver, (Data, MaybeData)):
                return self._method_value(receiver, "size", [], {}, node, frame)
            return UNKNOWN  # (a GroupBy of something that is not data: its size is a number)
        return super()._call(node, frame)


__all__ = ["COUNTS", "SizeCalls", "counts_per_key"]
