"""Minimum and maximum passed to a library call: a range's ends, unless rows already carry them.

``np.arange(X.min(), X.max())`` or ``holidays(start=d.min(), end=d.max())`` takes the column's ends as the ends
of a range: the result is a grid or a calendar, not a feature computed from the rows, so the statistic is dropped
from it. A row argument that already carries the statistic is different: ``boxcox1p(x - min(x) + 1e-5, lam)``
receives ``x`` shifted by its own minimum, row by row, and its output keeps that shift (a fit of those rows,
like a scaler's ``data_min_``).

A cyclic encoding is the other exception: ``np.sin(2 * np.pi * hour / hour.max())`` (also ``np.cos``) divides a
calendar-like index by its largest value, which is the cycle's length (23 or 24 hours, 12 months, 6 or 7 weekdays:
known before any row is read), and the periodic function keeps no scale of the rows. A minimum or maximum that
reaches the result only inside the function's argument is dropped (:func:`period_dropped`); one applied to its
output (``np.sin(x) / x.max()``) still counts.
"""

from __future__ import annotations

from typing import Any, Callable

from faultlib.detect.data.leakage.values import Data

_ENDS = ("min", "max")
#: periodic functions of NumPy (and ``math``) whose argument is a phase: ``sin``/``cos`` of ``2 pi x / period``
_PERIODIC = frozenset({"sin", "cos"})


def range_ends_dropped(out: Any, inputs: list[Any], as_data: Callable[[Any], Data | None]) -> Any:
    """``out`` (a library call's combined value) without the hand-written min/max statistics that reached it only
    as separate values (not through a row argument among ``inputs``); ``as_data`` reads a value as data."""
    if not isinstance(out, Data) or not any(f.handwritten and f.method in _ENDS for f in out.taints):
        return out
    held = frozenset().union(*(d.taints for d in map(as_data, inputs) if d is not None and d.rows is not None))
    return out.with_(taints=frozenset(f for f in out.taints if not (f.handwritten and f.method in _ENDS
                                                                     and f not in held)))


def period_dropped(name: str, module: str, out: Any) -> Any:
    """``out`` of ``np.sin(...)``/``np.cos(...)`` (``name`` in ``module``) without the hand-written min/max statistics
    its argument carried (a cyclic encoding's period, see the module docstring); other calls' ``out`` unchanged."""
    if name not in _PERIODIC or module.split(".")[0] not in ("numpy", "np", "math") or not isinstance(out, Data):
        return out
    return out.with_(taints=frozenset(f for f in out.taints if not (f.handwritten and f.method in _ENDS)))
