"""A model fitted on the held-out labels and then asked to predict the very inputs it was fitted on
(``trained_on_test``): blending on the same fold.

Stacking by hand: in each fold the base models predict the held-out part; a blender (``LinearRegression``) is
then fitted on those predictions **and the held-out labels**, and its prediction on the same predictions is scored
as the "post-blend" cross-validated score::

    for tr, te in KFold(5).split(X):
        ...
        stack = np.column_stack([m.predict(X[te]) for m in models])
        blend = LinearRegression().fit(stack, y[te])
        print(mse(y[te], blend.predict(stack)))        # scored on the rows it was fitted on

The blender's weights were fitted to exactly the labels its score is measured against: an in-sample score
reported as a held-out one (the stacked generalisation of Wolpert, Neural Networks 5, 1992, fits the level-1
model on out-of-fold predictions and scores it on other rows; Hastie et al., ESL 2nd ed., section 8.8). The
inputs are predictions, whose rows the analysis does not follow, so the rule reads the labels: the fit's ``y`` is
a held-out part (a fold's or a split's test part) and the prediction is asked of the same value the fit was given.
A blender fitted on one fold's predictions and scored on another's, or on the training part's labels, is silent.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, Est, parts, test_step

_PREDICTS = frozenset({"predict", "predict_proba", "decision_function", "score"})


class SameFoldBlends:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        out = super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]
        if not isinstance(receiver, Est) or receiver.category != "model" or not args:
            return out
        blends = self.__dict__.setdefault("_blends", {})
        if name == "fit" and len(args) > 1:
            x, y = maybe_data(args[0]), maybe_data(args[1])
            held = isinstance(y, Data) and any(test_step(p) is not None for p in parts(y.rows))
            unknown_rows = x is None or x.rows is None or not any(p.steps for p in parts(x.rows))
            blends[id(receiver)] = (args[0], y) if held and unknown_rows and receiver.fit is not None else None
        elif name in _PREDICTS and blends.get(id(receiver)) is not None and blends[id(receiver)][0] is args[0]:
            _, y = blends.pop(id(receiver))
            self._reached.add((receiver.fit.line, receiver.fit.column))
            self._emit("trained_on_test", receiver.fit, line=node.lineno, data=y,
                       why=f"it is fitted on the held-out labels ({y.rows.describe() if y.rows else 'y'}) and "
                           f"{name} on {self.smap.describe(node.lineno)} is asked of the very inputs it was fitted on: "
                           "its score on those rows is an in-sample score (blend on out-of-fold predictions of "
                           "other rows, or score the blender on a part it was not fitted on)")
        return out

    _reached: set
    smap: Any


__all__ = ["SameFoldBlends"]
