"""Folds over distinct keys taken back from the rows by membership, for the static leakage analysis.

Time-series and grouped competitions cross-validate over the distinct dates (or stocks, users) rather than over
rows, then take each fold's rows back by membership::

    days = df["date_id"].unique().sort()
    for train_idx, valid_idx in KFold(5).split(days):
        train = df.filter(pl.col("date_id").is_in(train_idx))     # polars (or days[train_idx])
        valid = df.filter(pl.col("date_id").is_in(valid_idx))
        # pandas: df[df["date_id"].isin(days[valid_idx])]

The rows kept are the fold's part of ``df``: every row of the dates the fold holds out (pandas API reference,
``Series.isin``; polars API reference, ``Expr.is_in``), exactly what ``df.iloc[valid_idx]`` is for a split over
rows. Without this the membership was a plain filter of every row, and a validation part named ``valid`` was
taken for a held-out table of its own: a per-stock statistic of every date, computed before the loop, looked
fitted on the test rows rather than outside the cross-validation (issue 17 wave 87: an Optiver trading-at-the-
close project whose folds over ``date_id`` are taken back with ``is_in``).

So a membership mask (one ``isin``/``is_in`` call, :func:`~.memberparts.membership_keys`) whose keys are a fold's
indices, or values selected by them (``days[valid_idx]``), keeps that part of the fold: the rows carry the fold's
step as ``df.iloc[idx]`` would. Keys that no fold chose (a list typed by hand, another table's ids) stay a plain
filter (or a part of a stack, :mod:`.memberparts`).

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_expr`` and ``_derive``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.memberparts import membership_keys
from faultlib.detect.data.leakage.values import Data, FoldIdx, Step, data_rows_child, maybe_data, parts

__all__ = ["GroupFolds"]


def _fold_step(keys: Any) -> Step | None:
    """The fold step the keys of a membership carry: a fold's indices, or values a fold selected."""
    if isinstance(keys, FoldIdx):
        return Step("fold", keys.loop, keys.part, line=keys.line)
    data = maybe_data(keys)
    if data is None:
        return None
    steps = {s for p in parts(data.rows) for s in p.steps[-1:] if s.kind == "fold"}
    return steps.pop() if len(steps) == 1 else None


class GroupFolds:
    """``df[df[c].isin(days[idx])]`` / ``df.filter(pl.col(c).is_in(idx))`` with ``idx`` a fold's indices: that
    fold's part of ``df`` (see the module docstring)."""

    def _stack_part(self, data: Data, index_node: ast.expr, frame: Any) -> Data | None:
        return super()._stack_part(data, index_node, frame) or self._fold_members(  # type: ignore[misc]
            data, index_node, frame)

    def _frame_method(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        data = maybe_data(receiver)
        if name == "filter" and len(node.args) == 1 and data is not None and data.rows is not None:
            picked = self._fold_members(data, node.args[0], frame)
            if picked is not None:
                return picked
        return super()._frame_method(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _fold_members(self, data: Data, mask: ast.expr, frame: Any) -> Data | None:
        keys = membership_keys(mask)
        if keys is None or data.rows is None:
            return None
        step = _fold_step(self._expr(keys, frame))  # type: ignore[attr-defined]
        if step is None:
            return None
        return self._derive(data, data_rows_child(data, step), step.line)  # type: ignore[attr-defined]
