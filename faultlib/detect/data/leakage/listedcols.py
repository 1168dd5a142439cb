"""Columns picked by a written-out list of names: the fits of the other columns stay behind.

``df[['age', 'income_filled']]`` and ``df.loc[:, names]`` with ``names`` a list of strings select those columns
and no other ("pandas API: Indexing and selecting data -- selecting multiple columns by a list of labels"). A
statistic written only into a column the list does not name (``df['income_median'] = df.income.fillna(
df.income.median())`` beside a modelled ``income_filled``) shapes none of the values selected: it is dropped as by
``df.drop(columns=[...])`` (:meth:`.frames.FrameSemantics._dropped_fits`, which keeps a fit whose values live on
in a listed column built from the unlisted one).

Issue 17, wave 72: a Home Credit script built mean- and median-filled variants of each column and modelled only the
mean-filled ones, named in ``independent_column_names``.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, parts
from faultlib.pyflow.values import Const, Tup


def listed_names(index: Any) -> list[str] | None:
    """The names of an evaluated list of column labels (every item a string); ``None`` for anything else."""
    if isinstance(index, Tup) and index.items and all(
            isinstance(i, Const) and isinstance(i.value, str) for i in index.items):
        return [i.value for i in index.items]
    return None


class ListedColumns:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_column_fits`` and
    ``_dropped_fits``): ``data`` narrowed to the columns a list names."""

    def _only_listed(self, data: Any, index: Any) -> Any:
        names = listed_names(index)
        if names is None or not isinstance(data, Data) or data.rows is None:
            return data
        roots = frozenset(p.root.uid for p in parts(data.rows))
        others = sorted({c for (r, c) in self._column_fits if r == roots and c not in names})  # type: ignore
        if not others:
            return data
        return data.with_(taints=data.taints - self._dropped_fits(data, others))  # type: ignore[attr-defined]


__all__ = ["ListedColumns", "listed_names"]
