"""Evaluation sets a booster is scored on while it trains, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. Gradient-boosting libraries (and Keras, with
``validation_data``) evaluate the model
on held-aside rows after every round and print the metric: ``xgboost.train(params, dtrain, rounds, evals)`` (also
passed as a ``watchlist``), ``lightgbm.train(params, train_set, valid_sets=[...])``, and the scikit-learn style
``model.fit(X, y, eval_set=[(X_val, y_val)])`` of XGBoost, LightGBM and CatBoost (their API references). With
``early_stopping_rounds`` those scores also choose the number of rounds. The rows of such a set are evaluated on:
the metric printed is the script's score of the model. So they count as scored rows, as a ``predict`` on them
does (ASE'22 define preprocessing leakage by the data a model is evaluated on): a fit that saw them before the
split that set them aside is reported (``fit_before_split`` for a training file's validation part, see
:mod:`~faultlib.detect.data.leakage.validation`). The training set in the same list (``(dtrain, 'train')``) is
the model's own rows, not a held-out part, and tells nothing. A booster's data holder (``xgb.DMatrix(X)``) holds
``X``'s rows.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Container, Tup

#: keywords that take the evaluation sets (xgboost ``evals``, lightgbm ``valid_sets``, the fit API's ``eval_set``;
#: Keras ``Model.fit(validation_data=(x_val, y_val))``: "data on which to evaluate the loss and any model metrics at
#: the end of each epoch", Keras API reference)
EVAL_KEYWORDS = ("evals", "valid_sets", "eval_set", "watchlist", "validation_data")
_BOOSTERS = ("xgboost", "lightgbm", "catboost")
#: the boosters' own data holders (``xgboost.DMatrix``, ``lightgbm.Dataset``, ``catboost.Pool``): their first
#: argument's rows
DATA_CONTAINERS = frozenset({"DMatrix", "QuantileDMatrix", "DeviceQuantileDMatrix", "Dataset", "Pool"})


class EvalSets:
    """Evaluation sets passed to a booster's training are scored rows (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        if ref.last in DATA_CONTAINERS and ref.module.split(".")[0] in _BOOSTERS:
            data = maybe_data(args[0] if args else kwargs.get("data"))
            if data is not None:  # xgb.DMatrix(X_val, label=y_val): the rows of X_val, as the booster reads them
                return data
        if ref.last == "train" and ref.module.split(".")[0] in _BOOSTERS:
            # xgboost.train(params, dtrain, num_boost_round, evals): the fourth positional is the evaluation list
            self._scored_sets([*args[3:4], *(kwargs.get(k) for k in EVAL_KEYWORDS)], node.lineno, f"{ref.last}()")
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if name == "fit" and any(k in kwargs for k in EVAL_KEYWORDS):
            used = next(k for k in EVAL_KEYWORDS if k in kwargs)
            self._scored_sets([kwargs.get(k) for k in EVAL_KEYWORDS], node.lineno, f"fit({used}=...)")
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _scored_sets(self, values: list[Any], line: int, how: str) -> None:
        from faultlib.detect.data.leakage.values import maybe_data

        for value in values:
            for item in _items(value, 3):
                data = maybe_data(item)
                if data is not None and data.rows is not None:
                    self._reach(data)
                    self._check_validation(data, line, how)  # validation.py
                    self._check_test(data, line, how)


def _items(value: Any, depth: int) -> list[Any]:
    """The leaves of nested lists/tuples/dicts (``[(dval, 'valid')]``, ``[(X_val, y_val)]``)."""
    if depth and isinstance(value, Tup):
        return [leaf for v in value.items for leaf in _items(v, depth - 1)]
    if depth and isinstance(value, Container):
        return [leaf for v in value.items.values() for leaf in _items(v, depth - 1)]
    return [value] if value is not None else []


__all__ = ["DATA_CONTAINERS", "EVAL_KEYWORDS", "EvalSets"]
