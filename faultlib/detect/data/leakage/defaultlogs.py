"""A training call that prints its evaluation sets' score every round by default, for ``tuned_on_test``.

``xgboost.train(params, dtrain, num_boost_round, evals=[(dvalid, 'valid')], early_stopping_rounds=50)`` prints
``[i] valid-rmse: ...`` at every round without being asked: its ``verbose_eval`` defaults to ``True`` (XGBoost
Python API reference, ``xgboost.train``: "verbose_eval (bool | int | None) -- Requires at least one item in evals.
If verbose_eval is True then the evaluation metric on the validation set is printed at each boosting stage", default
``True``). When a competition notebook stops on its validation part and only predicts the unlabelled test file,
that printed log is the result it shows (:mod:`.stopscores`, the house decision of wave 47), whether the keyword is
written or left at its default (wave 102: an XGBoost taxi-fare notebook with no ``verbose_eval``).

LightGBM's ``train`` is left out: its default changed across versions (``verbose_eval='warn'`` in 3.x, removed in
4.0, where only a ``log_evaluation`` callback prints), so an unwritten keyword tells nothing there.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_LOG_KEYWORDS = frozenset({"verbose_eval", "callbacks"})


def _xgboost_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names that call ``xgboost.train``: module aliases (``xgb``) and the function imported by name."""
    modules: set[str] = set()
    functions: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "xgboost"}
        elif isinstance(node, ast.ImportFrom) and node.module == "xgboost":
            functions |= {a.asname or a.name for a in node.names if a.name == "train"}
    return modules, functions


def default_log(call: ast.Call, tree: ast.Module) -> str | None:
    """``call`` is ``xgboost.train`` with an evaluation set and its per-round log left at the default (on), in
    words; ``None`` otherwise (a written ``verbose_eval`` or ``callbacks`` decides, :mod:`.stopscores`)."""
    if any(k.arg in _LOG_KEYWORDS or k.arg is None for k in call.keywords) or len(call.args) > 9:
        return None  # verbose_eval written (or spread from a dict, or its tenth positional): it decides
    if not (len(call.args) > 3 or any(k.arg == "evals" for k in call.keywords)):
        return None
    modules, functions = _xgboost_names(tree)
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "train" and isinstance(func.value, ast.Name) and \
            func.value.id in modules or isinstance(func, ast.Name) and func.id in functions:
        return "verbose_eval left at xgboost.train's default (True)"
    return None


__all__ = ["default_log"]
