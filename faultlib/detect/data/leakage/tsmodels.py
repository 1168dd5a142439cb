"""Time-series models that are given their series in the constructor, for the static leakage analysis.

statsmodels' time-series models take the observed series as the constructor's first argument, ``endog``, and
``fit()`` takes no rows (statsmodels API, ``statsmodels.tsa.arima.model.ARIMA(endog, exog=None, order=...)``,
``ARIMA.fit()``); the ``arch`` package does the same (``arch_model(y, p=1, q=1)`` then ``.fit()``; arch
documentation, "Univariate Volatility Models"). ``ARIMA(train, order=(2, 0, 2)).fit()`` is therefore a model fitted
on ``train``, exactly as ``Ridge().fit(X_train, y_train)``: a series clipped, scaled or filled with statistics of
the whole history and then cut into a training window and the days forecast (a walk-forward loop written by hand)
gives the model a fit of the held-out days.

Only the constructor's series is read (the first argument or the ``endog``/``y`` keyword); ``exog`` regressors and
``OLS(y, X)`` are left as before. A model built on a series that is not data the analysis follows stays unknown.
"""

from __future__ import annotations

from typing import Any

from faultlib.pyflow.values import Ref

#: statsmodels.tsa and arch classes (and arch's ``arch_model`` factory) whose constructor takes the series
SERIES_MODELS = frozenset({"ARIMA", "ARMA", "SARIMAX", "AutoReg", "ExponentialSmoothing", "SimpleExpSmoothing",
                           "Holt", "UnobservedComponents", "VAR", "VARMAX", "ThetaModel", "arch_model",
                           "ConstantMean", "ZeroMean", "ARX", "HARX"})
#: the libraries they come from (the first part of the imported name)
_LIBRARIES = ("statsmodels", "arch")
#: keywords naming the series
_SERIES_KEYWORDS = ("endog", "y")


def constructor_series(ref: Ref, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The series ``ref(...)`` is built on when ``ref`` is one of :data:`SERIES_MODELS` from statsmodels or arch;
    ``None`` otherwise (or when no series is given)."""
    if ref.last not in SERIES_MODELS or ref.module.split(".")[0] not in _LIBRARIES:
        return None
    if args:
        return args[0]
    return next((kwargs[k] for k in _SERIES_KEYWORDS if k in kwargs), None)


__all__ = ["SERIES_MODELS", "constructor_series"]
