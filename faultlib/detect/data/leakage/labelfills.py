"""Labels filled or rescaled by a transformer fitted on every row: the fit reaches the model through its labels.

A fit reaches a model when its output is the model's input ``X`` (:meth:`~.static.Analyzer._reach`). A transformer
fitted on the *target* reaches the model through the labels instead, and its statistic is then in every training
label and every scored test label::

    y = SimpleImputer(strategy="mean").fit(y_col).transform(y_col)   # gaps in the load filled with the mean load
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)
    model.fit(X_tr, y_tr); print(r2_score(y_te, model.predict(X_te)))

The test period's loads shaped the mean that fills the training period's gaps, and the test labels are filled with a
mean of themselves: the same fit before the split as a feature imputer's (Kapoor & Narayanan, "Leakage and the
reproducibility crisis in machine-learning-based science", Patterns 2023: pre-processing on train and test together;
issue 17 wave 90: load forecasters that fill the zero hours of the demand with a mean imputer over every hour, then
cut the last thirty days; wave 51, a scaler fitted on the target of every row before the split).

:class:`LabelFills` hooks a model's training call (``fit`` and Keras' ``fit_generator``/``train_on_batch`` of a model,
a pipeline holding one, or an object the analysis does not know): the fits its labels (the second positional
argument, or ``y=``) carry reach the model when they are a library transformer that keeps the labels' meaning, an
imputer or a scaler (:data:`_KEEPS_MEANING`: scikit-learn's ``sklearn.impute`` and ``sklearn.preprocessing`` scalers
and power transforms). A statistic written by hand stays as it was: the mean that thresholds a price into an up/down
label defines the target (a label threshold, not a fill), and so do encoders and clusterings of the target (class
names, cluster ids).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.scoring import holds_model
from faultlib.detect.data.leakage.values import Data, Est, maybe_data

#: transformers whose output is the same quantity, filled or rescaled (not a new label): the labels keep their
#: meaning, and the transformer's statistic is in each of them
_KEEPS_MEANING = frozenset({"PowerTransformer", "QuantileTransformer"})
_KEEPS_MEANING_SUFFIXES = ("Imputer", "Scaler")
#: calls that train a model on ``(X, y)``
_TRAINING = frozenset({"fit", "fit_generator", "train_on_batch", "partial_fit"})


def keeps_meaning(estimator: str) -> bool:
    """An imputer, a scaler or a power transform: its output is the same quantity as its input."""
    return estimator in _KEEPS_MEANING or estimator.endswith(_KEEPS_MEANING_SUFFIXES)


class LabelFills:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring); needs ``_reach``."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if name in _TRAINING and _trains_model(receiver):
            labels = maybe_data(args[1] if len(args) > 1 else kwargs.get("y"))
            kept = frozenset(f for f in labels.taints if not f.handwritten and keeps_meaning(f.estimator)) \
                if labels is not None else frozenset()
            if kept:
                self._reach(Data(labels.rows, kept, labels.test))  # type: ignore[attr-defined]
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]


def _trains_model(receiver: Any) -> bool:
    """A model, a search, a pipeline holding a model, or an object the analysis does not know (Keras, xgboost)."""
    if isinstance(receiver, Est):
        return receiver.category in ("model", "search") or holds_model(receiver)
    return maybe_data(receiver) is None


__all__ = ["LabelFills", "keeps_meaning"]
