"""Rows relabelled in place by their membership in a set a statistic chose, for the static leakage analysis.

Rare levels of a category are often collapsed by writing a constant into the rows whose level is in a set::

    counts = both[c].value_counts()                   # both = train and test stacked
    rare = counts[counts < 40].index                  # the levels a count chose (countkeys.py)
    both.loc[both[c].isin(rare), c] = "other"          # <- every rare level becomes one

The value written is a constant, but which rows get it is what the counts decided: a level that is rare in the
training rows and common in the test rows survives, exactly as with
``np.where(both[c].isin(rare), "other", both[c])``, which already carries the counts' fit through ``isin``. Written
in place, only the constant reached the frame and the choice was lost (issue 17 wave 87: a Kaggle playground
project's rare categories, counted over train and test stacked, relabelled with ``df.loc[mask, c] = 0``).

So ``df.loc[M, c] = v``, ``df.loc[M] = v`` and ``df[c][M] = v``, where ``M`` is ``s.isin(S)`` (or its negation
``~s.isin(S)``) and ``S`` holds only a statistic (keys chosen by counts, a list of such keys: no rows of its own),
write ``v`` carrying the fits of ``S``. Only ``S`` is evaluated again, and only when it is names, attributes,
subscripts and constants (reading it runs nothing). A set written by hand (``isin(["a", "b"])``) or a set of rows
(``isin(test_ids)``) carries no statistic and adds nothing.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`, called from its ``_bind_item``.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.memberparts import membership_keys
from faultlib.detect.data.leakage.values import Data, maybe_data

__all__ = ["RelabelledMembers", "membership_set"]


def _plain(node: ast.expr) -> bool:
    """Names, attributes, subscripts, slices and constants only: evaluating it again calls nothing."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Constant, ast.UnaryOp,
                              ast.Load, ast.unaryop, ast.Tuple)) for n in ast.walk(node))


def membership_set(key: ast.expr) -> ast.expr | None:
    """``S`` of a row mask ``x.isin(S)`` or ``~x.isin(S)`` (``None`` for any other key)."""
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, (ast.Invert, ast.Not)):
        key = key.operand
    return membership_keys(key)


def _row_key(target: ast.Subscript) -> ast.expr:
    """The rows part of ``df.loc[rows, cols]`` / ``df[c][rows]``."""
    key = target.slice
    return key.elts[0] if isinstance(key, ast.Tuple) and key.elts else key


class RelabelledMembers:
    """``df.loc[df[c].isin(S), c] = v``: ``v`` carries the fits of ``S`` (see the module docstring)."""

    def _relabelled_members(self, target: ast.expr, value: Any, frame: Any) -> Any:
        if not isinstance(target, ast.Subscript):
            return value
        chosen = membership_set(_row_key(target))
        if chosen is None or not _plain(chosen):
            return value
        held = maybe_data(self._expr(chosen, frame))  # type: ignore[attr-defined]
        if held is None or held.rows is not None or not held.taints:
            return value
        data = value if isinstance(value, Data) else None
        return data.with_(taints=data.taints | held.taints) if data is not None else Data(None, held.taints, False)
