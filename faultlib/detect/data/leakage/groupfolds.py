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
step (:func:`fold_step`) as ``df.iloc[idx]`` would; :class:`~.memberparts.MemberParts` reads the mask. Keys that no
fold chose (a list typed by hand, another table's ids) stay a plain filter (or a part of a stack).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import FoldIdx, Step, maybe_data, parts

__all__ = ["fold_step"]


def fold_step(keys: Any) -> Step | None:
    """The fold step the keys of a membership carry: a fold's indices, or values a fold selected."""
    if isinstance(keys, FoldIdx):
        return Step("fold", keys.loop, keys.part, line=keys.line)
    data = maybe_data(keys)
    if data is None:
        return None
    steps = {s for p in parts(data.rows) for s in p.steps[-1:] if s.kind == "fold"}
    return steps.pop() if len(steps) == 1 else None
