"""A training call that prints its evaluation sets' score every round by default, for ``tuned_on_test``.

``xgboost.train(params, dtrain, num_boost_round, evals=[(dvalid, 'valid')], early_stopping_rounds=50)`` prints
``[i] valid-rmse: ...`` at every round without being asked: its ``verbose_eval`` defaults to ``True`` (XGBoost
Python API reference, ``xgboost.train``: "verbose_eval (bool | int | None) -- Requires at least one item in evals.
If verbose_eval is True then the evaluation metric on the validation set is printed at each boosting stage", default
``True``). When a competition notebook stops on its validation part and only predicts the unlabelled test file,
that printed log is the result it shows (:mod:`.stopscores`, the house decision of wave 47), whether the keyword is
written or left at its default (wave 102: an XGBoost taxi-fare notebook with no ``verbose_eval``).

The default counts only where the script predicts a test file with the model (``model.predict(X_test)`` with
``X_test`` read from a file of its own, :mod:`.filelineage`): the competition notebook's submission, where nothing
else shows how the model does. A booster trained and only saved, or never used, is a fit whose log nobody was
meant to read as a result (a written ``verbose_eval`` decides by itself, :mod:`.stopscores`).

LightGBM's ``train`` is left out: its default changed across versions (``verbose_eval='warn'`` in 3.x, removed in
4.0, where only a ``log_evaluation`` callback prints), so an unwritten keyword tells nothing there.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

_LOG_KEYWORDS = frozenset({"verbose_eval", "callbacks"})
#: the calls that only predict (``score`` takes labels: no unlabelled file)
_PREDICTS = vocab.EVALUATE - {"score"}


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


def _predicts_file(tree: ast.Module, from_file: Callable[[str, int], bool]) -> bool:
    """A prediction (``predict``, ``predict_proba``) of rows named for testing that ``from_file`` traces to a file
    of their own."""
    for node in walk_once(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _PREDICTS and node.args:
            names = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
            if any(vocab.looks_like_test(n) and from_file(n, node.lineno) for n in names):
                return True
    return False


def default_log(call: ast.Call, tree: ast.Module, from_file: Callable[[str, int], bool]) -> str | None:
    """``call`` is ``xgboost.train`` with an evaluation set and its per-round log left at the default (on), in a
    script that predicts a test file (``from_file`` tells a name's rows read from a file), in words; ``None``
    otherwise (a written ``verbose_eval`` or ``callbacks`` decides, :mod:`.stopscores`)."""
    if any(k.arg in _LOG_KEYWORDS or k.arg is None for k in call.keywords) or len(call.args) > 9:
        return None  # verbose_eval written (or spread from a dict, or its tenth positional): it decides
    if not (len(call.args) > 3 or any(k.arg == "evals" for k in call.keywords)):
        return None
    modules, functions = _xgboost_names(tree)
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "train" and isinstance(func.value, ast.Name) and \
            func.value.id in modules or isinstance(func, ast.Name) and func.id in functions:
        if _predicts_file(tree, from_file):
            return "verbose_eval left at xgboost.train's default (True)"
    return None


__all__ = ["default_log"]
