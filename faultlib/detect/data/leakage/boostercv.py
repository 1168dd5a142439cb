"""The boosting libraries' own cross-validation, for the static leakage analysis.

``xgboost.cv(params, dtrain, nfold=5)`` and ``lightgbm.cv(params, train_set, nfold=5)`` split the rows of their
data holder (``xgb.DMatrix(X, label=y)``, ``lgb.Dataset(X, label=y)``) into folds, train on all but one and report
the held-out fold's metric (xgboost API reference, ``xgboost.cv``: "Cross-validation with given parameters";
LightGBM API reference, ``lightgbm.cv``: "Perform the cross-validation with given parameters"), the number of
rounds is then often taken from it. They cross-validate like ``cross_val_score``: an encoding or binning fitted on
every row of ``X`` before them shaped each fold's held-out rows (wave 56: a count encoding and quantile bins of a
whole training file, then ``xgb.cv``). The holder's rows are those of its data
(:data:`~faultlib.detect.data.leakage.evalsets.DATA_CONTAINERS`).
"""

from __future__ import annotations

import ast
from typing import Any

_BOOSTERS = ("xgboost", "lightgbm")
#: the data holder's keyword in each library's ``cv`` (positional: the second argument)
_DATA_KEYWORDS = ("dtrain", "train_set")


class BoosterCV:
    """``xgboost.cv`` / ``lightgbm.cv`` cross-validate their data holder's rows (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        top = ref.module.split(".")[0]
        if ref.last == "cv" and top in _BOOSTERS:
            given = args[1] if len(args) > 1 else next((kwargs[k] for k in _DATA_KEYWORDS if k in kwargs), None)
            data = maybe_data(given)
            if data is not None:
                self._reach(data)  # type: ignore[attr-defined]
                self._check_cv(data, node.lineno, f"{top}.cv()")  # type: ignore[attr-defined]
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["BoosterCV"]
