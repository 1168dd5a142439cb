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

**Replacement at the fences** (``df['age'][df['age'] > q995] = df['age'].median()``, ``df.loc[df.h < q05, 'h'] =
v``): the same fence decides which rows get the new value, as a clip at it would; the column assigned carries the
fence's fit whatever the value written (a constant, a median), under the same policy (:meth:`_replaced_at_bounds`).
The method spelling, ``df[c].mask(mask, pd.NA)`` / ``df[c].where(~mask, v)`` (pandas API reference,
``Series.mask``: "replace values where the condition is True"; ``where``: where it is False), is the same
replacement (wave 89: a cleaning helper turned every value beyond Tukey's fences of the whole training file into a
missing value before a later script held one fold of it out).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data


#: statistics that are an end of the range: a mask at them picks a period or the extreme row, not a fence
_RANGE_ENDS = frozenset({"max", "min", "amax", "amin", "nanmax", "nanmin"})

#: statistics that place a fence in a tail of the distribution (a quantile, a multiple of the spread): values
#: replaced beyond them are outliers moved, as a clip moves them. A mask at the median or mean alone splits the
#: rows in two halves (a flag): replacing one half (``df.loc[df.x > df.x.median(), 'x'] = 0``) stays silent, as
#: wave 30 decided (tests/detect/test_leakage_wave30.py, ``rows_masked_at_the_median_then_split``)
_TAIL_FENCES = frozenset({"quantile", "percentile", "nanquantile", "nanpercentile", "std", "nanstd", "var", "iqr"})


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

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        out = super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]
        cond = args[0] if args else kwargs.get("cond")
        fences = frozenset(f for f in self._bounds_of(cond) if f.method in _TAIL_FENCES) if name in (
            "mask", "where") else frozenset()
        if fences and isinstance(out, Data):  # s.mask(s > q3 + 1.5 * iqr, pd.NA): values replaced at the fences
            return out.with_(taints=out.taints | fences)
        return out

    def _replaced_at_bounds(self, target: ast.expr, value: Any, frame: Any) -> Any:
        """``df[c][mask] = v`` / ``df.loc[mask, c] = v`` with ``mask`` cut at hand-written statistics: ``v`` as
        :class:`Data` carrying those statistics too (else ``value`` unchanged). Only a mask held in a name or
        written as a comparison (``~``, ``&``, ``|`` of them) is evaluated again: it has no call with effects."""
        if not isinstance(target, ast.Subscript):
            return value
        key = target.slice.elts[0] if isinstance(target.slice, ast.Tuple) and target.slice.elts else target.slice
        calls = any(isinstance(n, ast.Call) for n in ast.walk(key))
        if not isinstance(key, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Name)) or calls and not \
                isinstance(key, ast.Compare):
            return value
        bounds = self._bounds_of(self._expr(key, frame))
        if not any(f.method in _TAIL_FENCES for f in bounds):
            return value
        data = value if isinstance(value, Data) else None
        return data.with_(taints=data.taints | bounds) if data is not None else Data(None, bounds, False)


__all__ = ["OutlierMasks"]
