"""Values winsorised at quantiles of their own rows by SciPy, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. ``scipy.stats.mstats.winsorize(a, limits=(lo,
hi))`` sets the lowest ``lo`` and highest ``hi`` fraction of ``a``'s values to the value at that quantile of ``a``
(SciPy reference, ``scipy.stats.mstats.winsorize``): the bounds are quantiles of the rows, a statistic, exactly as
``df[c].clip(df[c].quantile(lo), df[c].quantile(hi))`` (:mod:`.outliers`). Done on every row before the split, the
test rows helped place the bounds. Without ``limits`` (SciPy's default ``None``) nothing is clipped and nothing is
learnt; on the training part alone the bounds are the training rows' (no leak: the statistic's rows decide).
"""

from __future__ import annotations

import ast
from typing import Any

#: SciPy's functions that clip values at quantiles of the values they are given
QUANTILE_CLIPS = frozenset({"winsorize"})


def _limits_given(args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> bool:
    """``limits`` passed (second positional argument or keyword) and not written as ``None``."""
    written = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "limits"), None)
    if written is None:
        return False
    return not (isinstance(written, ast.Constant) and written.value is None)


class WinsorFits:
    """``winsorize(a, limits)`` is a fit on ``a`` (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in QUANTILE_CLIPS and ref.module.startswith("scipy.stats") and args and \
                _limits_given(args, kwargs, node):
            from faultlib.detect.data.leakage.values import Data, Est, as_data

            data = as_data(args[0])
            if data is not None:
                fit = self._fit(Est(ref.last, "transformer", preprocessing=True), data, False, ref.last, node, frame)
                return Data(data.rows, data.taints | ({fit} if fit else set()), data.test)  # the same rows, clipped
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["QUANTILE_CLIPS", "WinsorFits"]
