"""A date cut and its complement split the rows in time, for the static leakage analysis.

Used by :mod:`~faultlib.detect.data.leakage.maskpairs`. Forecasting code often splits one table at a date with two
comparisons, no ``train_test_split`` in sight::

    train_full = df[df["month"] < "2025-04-01"]
    test_df = df[df["month"] >= "2025-04-01"]

``col < c`` keeps exactly the rows ``col >= c`` drops (pandas user guide, "Boolean indexing"), so the two
selections are the two parts of one split, as a mask and its negation are (:mod:`.maskpairs`). Which side is held
out follows from time, not from a name: the scikit-learn user guide ("Cross-validation of time series data",
``TimeSeriesSplit``) trains on the past and tests on what follows, so the side at or after the cut is the test part.
Knowing that, statistics of the earlier side (per-series means that fill its gaps and, merged, the later months')
are fitted on the training part, and a later stack of both sides re-cut per month is no fit on held-out rows.

What counts, read from the code alone: a comparison ``<``, ``<=``, ``>`` or ``>=`` of an expression with a date (an
ISO ``'2025-04-01'`` string, a ``date``/``datetime``/``pd.Timestamp``/``pd.to_datetime`` call, or a name bound to
one of these), written both ways in the module (an earlier side and a later side of the same expression and date).
A comparison with a number (``df.age < 30``) is a subgroup, not a cut in time, and stays a plain filter.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.cutdates import is_date

Binds = dict[str, list[tuple[int, "ast.expr | None"]]]

_EARLIER = (ast.Lt, ast.LtE)
_LATER = (ast.Gt, ast.GtE)
_MIRROR = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def date_cut(node: ast.expr, line: int, binds: Binds) -> tuple[str, bool] | None:
    """``(text of the cut, later side?)`` when ``node`` compares an expression with a date (``df.d >= '2025-04'``
    is the later side, ``'2025-04' > df.d`` the earlier one); ``None`` otherwise.

    Args:
        node: a boolean expression.
        line: where it is written (names are followed to their last binding before it).
        binds: every simple binding of the module, ``name -> [(line, value)]`` in line order.
    """
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], _EARLIER + _LATER)):
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    if _dated(left, line, binds) and not _dated(right, line, binds):
        left, right, op = right, left, _MIRROR[type(op)]()
    if not _dated(right, line, binds):
        return None
    return f"{ast.unparse(left)} <cut> {ast.unparse(right)}", isinstance(op, _LATER)


def _dated(node: ast.expr, line: int, binds: Binds) -> bool:
    if isinstance(node, ast.Name):
        before = [b for b in binds.get(node.id, ()) if b[0] < line]
        return bool(before) and before[-1][1] is not None and is_date(before[-1][1], set())
    return is_date(node, set())


__all__ = ["date_cut"]
