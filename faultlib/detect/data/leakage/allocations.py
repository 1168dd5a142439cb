"""Fresh NumPy arrays shaped like data, for the static leakage analysis: ``np.empty_like(x)`` holds none of x's rows.

``np.empty_like(a)``, ``np.zeros_like(a)``, ``np.ones_like(a)`` and ``np.full_like(a, v)`` return "a new array with
the same shape and type as a given array" whose entries are uninitialised, zeros, ones or ``v`` (NumPy reference,
``numpy.empty_like`` and its siblings). The result has ``a``'s shape, not its values: no row of ``a`` is in it, and
no fit that shaped ``a`` shaped it.

Without this, the allocated array carried ``a``'s rows. A plotting buffer named for the test part, allocated like
the whole scaled series (``TestPredictPlot = np.empty_like(DataScaled)`` in a stock-price LSTM script, wave 60),
then read as "the whole series is the test set", and the scaler fitted on that series before the positional cut
was reported as fitted on test rows instead of before the split. The array is treated like ``np.zeros((n, k))``:
an unknown value no data has reached yet, which takes a column's rows when a whole column is filled
(:mod:`~faultlib.detect.data.leakage.fresh`).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, Ref

#: NumPy's ``*_like`` allocators: a new array with the shape of their first argument and none of its values
LIKE_ALLOCATORS = frozenset({"empty_like", "zeros_like", "ones_like", "full_like"})


def _numpy(ref: Ref) -> bool:
    return ref.module.split(".")[0] in ("numpy", "np")


class FreshArrays:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in LIKE_ALLOCATORS and _numpy(ref):
            return UNKNOWN
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["LIKE_ALLOCATORS", "FreshArrays"]
