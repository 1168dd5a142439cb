"""Early stopping set as a key of a booster's parameter dictionary, for :mod:`.earlystop`.

LightGBM reads early stopping from its parameters as well as from the ``early_stopping_rounds=`` keyword of
``lgb.train`` (LightGBM Parameters reference: ``early_stopping_round``, "default = 0 ... will stop training if one
metric of one validation data doesn't improve in last early_stopping_round rounds", aliases
``early_stopping_rounds``, ``early_stopping``, ``n_iter_no_change``); CatBoost's ``catboost.train(params, ...)``
reads ``early_stopping_rounds`` from its parameters the same way (CatBoost training parameters reference,
"early_stopping_rounds: sets the overfitting detector type to Iter and stops the training after the specified
number of iterations since the iteration with the optimal metric value"). So::

    params = {'objective': 'binary', 'metric': 'auc', 'early_stopping_round': 100}
    model = lgb.train(params, dtrain, valid_sets=[dtrain, dvalid])

stops on ``dvalid`` exactly as ``lgb.train(params, dtrain, valid_sets=[...], early_stopping_rounds=100)`` does.
:func:`params_stop` reads the dictionary the call is given, as its value the interpreter knows (a dictionary built
in another function and passed on) or, failing that, as the literal assigned to its name before the call
(:func:`~.spread.dict_key`). A value of ``None``, 0 or ``False`` turns it off (LightGBM: "<= 0 means disable").
XGBoost's ``xgb.train`` takes early stopping only as its keyword, never from ``params``: not read here.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.spread import dict_key
from faultlib.pyflow.values import Const, Container

#: the parameter names that switch early stopping on, by library (LightGBM's name and its aliases; CatBoost's)
PARAM_STOP_KEYS = {"lightgbm": ("early_stopping_round", "early_stopping_rounds", "early_stopping",
                                "n_iter_no_change"),
                   "catboost": ("early_stopping_rounds", "od_wait")}


def _off(value: Any) -> bool:
    """A setting that disables early stopping: ``None``, 0, ``False`` (or a negative number, LightGBM's "<= 0")."""
    if isinstance(value, ast.Constant):
        value = value.value
    elif isinstance(value, Const):
        value = value.value
    else:
        return False
    return value is None or value is False or (type(value) in (int, float) and value <= 0)


def params_stop(library: str, call: ast.Call, params: Any, tree: ast.Module,
                bindings: dict[str, list[ast.expr]]) -> str | None:
    """How ``call`` (``lgb.train``/``catboost.train`` of ``library``) stops early through its parameter dictionary,
    in words (``params['early_stopping_round']``), else ``None``.

    Args:
        library: the booster's top-level module (``lightgbm``, ``catboost``); others have no such parameter.
        call: the training call; its first argument or ``params=`` is the dictionary.
        params: the interpreter's value of that argument (a :class:`~faultlib.pyflow.values.Container` when known).
        tree: the module, for the literal assigned to the dictionary's name.
        bindings: the module's ``{name: [assigned expressions]}``.
    """
    keys = PARAM_STOP_KEYS.get(library, ())
    if isinstance(params, Container):
        for key in keys:
            if key in params.items and not _off(params.items[key]):
                return f"params['{key}']"
    node = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "params"), None)
    if node is None:
        return None
    for key in keys:
        value = dict_key(node, key, call.lineno, tree, bindings)
        if value is not None and not _off(value):
            return f"params['{key}']"
    return None


__all__ = ["PARAM_STOP_KEYS", "params_stop"]
