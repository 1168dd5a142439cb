"""A bootstrap sample drawn with pandas, for the static leakage analysis.

``df.sample(n=len(df), replace=True)`` is the pandas spelling of ``sklearn.utils.resample(df)`` (pandas API
reference, ``DataFrame.sample``: ``replace`` allows "sampling of the same row more than once"): most rows come out
two or more times. The analysis already reads scikit-learn's ``resample`` with replacement as a resampling fit
(:mod:`.design`): run before a split or a cross-validation, copies of one row land on both sides, and the held-out
score partly measures rows the model was fitted on (the house policy for oversampling before a split or CV, issue
17). Issue 17 wave 79: three click-through notebooks tuned boosters with ``BayesSearchCV(cv=5)`` over such a
bootstrap of their training table. ``df.sample(frac=1)`` (a shuffle) and a draw without replacement stay plain row
selections.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, Est, as_data
from faultlib.pyflow.values import Const


class PandasBootstraps:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        replace = kwargs.get("replace")
        data = as_data(receiver) if name == "sample" else None  # (a table read from a file is data once sampled)
        if data is not None and isinstance(replace, Const) and replace.value is True:
            bootstrap = Est("sample(replace=True)", "transformer", preprocessing=True)
            fit = self._fit(bootstrap, data, False, "resample", node, frame)  # type: ignore[attr-defined]
            return Data(data.rows, data.taints | ({fit} if fit else set()), data.test)
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]


__all__ = ["PandasBootstraps"]
