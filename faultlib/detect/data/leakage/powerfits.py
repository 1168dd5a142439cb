"""Power transforms estimated by SciPy, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. ``scipy.stats.boxcox(x)`` and
``scipy.stats.yeojohnson(x)`` called without ``lmbda`` estimate the transform's lambda from ``x`` by maximum
likelihood and return ``(transformed, lambda)`` (SciPy reference, ``scipy.stats.boxcox``): a fit on the rows of
``x``, like scikit-learn's ``PowerTransformer``. Run on train and test stacked, or on all rows before a split, the
lambda saw the held-out rows. With ``lmbda`` given (or ``scipy.special.boxcox(x, lmbda)``, which always takes it)
nothing is learnt from the rows. ``scipy.stats.boxcox_normmax(x)`` and ``yeojohnson_normmax(x)`` return that
estimated lambda alone (SciPy reference, ``scipy.stats.boxcox_normmax``); it is then typed into
``scipy.special.boxcox1p(x, lmbda)``, so the estimate carries the fit.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Tup

#: SciPy's power transforms that estimate their lambda when none is given
POWER_TRANSFORMS = frozenset({"boxcox", "yeojohnson"})
#: SciPy's functions that return only the lambda they estimate from the rows
LAMBDA_ESTIMATES = frozenset({"boxcox_normmax", "yeojohnson_normmax"})


class PowerFits:
    """``boxcox(x)`` without ``lmbda`` is a fit on ``x`` (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in POWER_TRANSFORMS and ref.module.startswith("scipy.stats") and len(args) == 1 and \
                "lmbda" not in kwargs:
            from faultlib.detect.data.leakage.values import as_data
            from faultlib.detect.data.leakage.values import Data, Est

            data = as_data(args[0])
            if data is not None:
                est = Est(ref.last, "transformer", preprocessing=True)
                fit = self._fit(est, data, False, ref.last, node, frame)
                taints = data.taints | ({fit} if fit else set())
                # (transformed, lambda): the values keep x's rows; lambda is one number estimated from them
                return Tup((Data(data.rows, taints, data.test), Data(None, taints)))
        if ref.last in LAMBDA_ESTIMATES and ref.module.startswith("scipy.stats") and args:
            from faultlib.detect.data.leakage.values import as_data
            from faultlib.detect.data.leakage.values import Data, Est

            data = as_data(args[0])
            if data is not None:
                fit = self._fit(Est(ref.last, "transformer", preprocessing=True), data, False, ref.last, node, frame)
                return Data(None, data.taints | ({fit} if fit else set()))  # one number estimated from the rows
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["LAMBDA_ESTIMATES", "POWER_TRANSFORMS", "PowerFits"]
