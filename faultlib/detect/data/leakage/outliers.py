"""Rows dropped as outliers by bounds computed from the rows, for the static leakage analysis.

Policy (owner's decision, stop 34): a **row filter whose bounds are statistics of the rows** (Tukey's IQR fences
``q1 - 1.5 * iqr``/``q3 + 1.5 * iqr``, a quantile, ``mean +- 3 * std``, a z-score) **is a fit of those rows**.
Done on all rows before the split (or on the rows a cross-validation then scores), the fences saw the held-out
rows: which rows survive to be scored depends on the test rows' own values, exactly as a clip at the same bounds
(``df[c].clip(q1 - 1.5 * iqr, q3 + 1.5 * iqr)``, long reported) changes their values. Both use the same statistic;
one keeps the row and moves its value, the other drops the row: the analysis treats them alike. The fences of the
training part alone, applied afterwards to the test part, are no leak (the statistic's rows decide, as for every
fit). A mask at the **maximum or minimum** (``df[df.block < df.block.max()]``: every period but the last) is a
cut-off, not a fence, and stays silent. A **fixed threshold** written in the code (``df[df.price < 1e6]``, domain knowledge) learns nothing and
stays silent, as does a comparison with a statistic that makes a *label* or a feature column (:mod:`.flags`).

How: a comparison with a statistic written by hand drops the statistic from its result (a mask or a label is no
feature computed from held-out rows: ``Analyzer._compare``); the statistic is kept aside here, carried through
``&``/``|``/``~`` of such masks, and given back to the rows when the mask indexes a table's rows
(``df[mask]``, ``df.loc[mask]``): the selected rows carry the statistic's fit.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data


#: statistics that are an end of the range: a mask at them picks a period or the extreme row, not a fence
_RANGE_ENDS = frozenset({"max", "min", "amax", "amin", "nanmax", "nanmin"})


class OutlierMasks:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _bounds_registry(self) -> dict[int, tuple[Data, frozenset]]:
        if not hasattr(self, "_mask_bounds_by_id"):
            # id(mask value) -> (the value, kept alive so its id is not reused; the statistics it was cut at)
            self._mask_bounds_by_id: dict[int, tuple[Data, frozenset]] = {}
        return self._mask_bounds_by_id

    def _bounds_of(self, value: Any) -> frozenset:
        entry = self._bounds_registry().get(id(value))
        return entry[1] if entry is not None and entry[0] is value else frozenset()

    def _mask_cut_at(self, mask: Any, stripped: frozenset) -> Any:
        """``mask`` is a comparison's result with the hand-written statistics ``stripped`` from it: keep them aside
        (not a maximum or minimum: ``dates < dates.max()`` holds out the last period, a cut-off, not a fence)."""
        stripped = frozenset(f for f in stripped if f.method not in _RANGE_ENDS)
        if stripped and isinstance(mask, Data):
            self._bounds_registry()[id(mask)] = (mask, stripped)
        return mask

    def _masks_joined(self, values: list[Any], out: Any) -> Any:
        """``(a > lo) & (a < hi)``, ``~m``: the combined mask keeps every part's bounds."""
        bounds = frozenset().union(*(self._bounds_of(v) for v in values))
        if bounds and isinstance(out, Data):
            self._bounds_registry()[id(out)] = (out, bounds | self._bounds_of(out))
        return out

    def _mask_bounds(self, index: Any) -> frozenset:
        """The statistics a row mask was cut at (empty for any other index)."""
        return self._bounds_of(index)


__all__ = ["OutlierMasks"]
