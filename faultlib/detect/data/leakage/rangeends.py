"""Minimum and maximum passed to a library call: a range's ends, unless rows already carry them.

``np.arange(X.min(), X.max())`` or ``holidays(start=d.min(), end=d.max())`` takes the column's ends as the ends
of a range: the result is a grid or a calendar, not a feature computed from the rows, so the statistic is dropped
from it. A row argument that already carries the statistic is different: ``boxcox1p(x - min(x) + 1e-5, lam)``
receives ``x`` shifted by its own minimum, row by row, and its output keeps that shift (a fit of those rows,
like a scaler's ``data_min_``).
"""

from __future__ import annotations

from typing import Any, Callable

from faultlib.detect.data.leakage.values import Data

_ENDS = ("min", "max")


def range_ends_dropped(out: Any, inputs: list[Any], as_data: Callable[[Any], Data | None]) -> Any:
    """``out`` (a library call's combined value) without the hand-written min/max statistics that reached it only
    as separate values (not through a row argument among ``inputs``); ``as_data`` reads a value as data."""
    if not isinstance(out, Data) or not any(f.handwritten and f.method in _ENDS for f in out.taints):
        return out
    held = frozenset().union(*(d.taints for d in map(as_data, inputs) if d is not None and d.rows is not None))
    return out.with_(taints=frozenset(f for f in out.taints if not (f.handwritten and f.method in _ENDS
                                                                     and f not in held)))
