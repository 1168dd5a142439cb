"""Which of a training call's evaluation sets its early stopping watches (for :mod:`.earlystop`).

A booster given several evaluation sets does not stop on all of them alike:

* **XGBoost** stops on the **last** one: ``xgb.train(params, dtrain, evals=[(dvalid, 'eval'), (dtrain, 'train')],
  early_stopping_rounds=30)`` stops when the training rows stop improving (XGBoost's ``train`` reference: "If
  there's more than one item in evals, the last entry will be used for early stopping"; the same for the
  scikit-learn ``fit(eval_set=[...])``, and the log says "'train-auc' will be used for early stopping");
* **CatBoost** keeps the best iteration of the **last** validation set (its ``get_best_iteration`` reference: "the
  iteration with the best result of the evaluation metric or loss function on the last validation set");
* **LightGBM** checks every validation set **but the training data** (``early_stopping`` reference: "If there's
  more than one, will check all of them. But the training data is ignored anyway"), which
  :meth:`.stopscores.StopScores.stop_rows` already follows by taking the training rows out.

So when the last entry of an XGBoost or CatBoost list is the training set, no held-out rows chose the number of
rounds: the earlier entries are only printed. :func:`last_watched` narrows a call's evaluation-set expressions (and
the values the analysis holds for them) to that last entry; a single set, or a list it cannot read, stays whole.
A training stopped by a callback (XGBoost's ``callback.EarlyStopping``, which may name its set with ``data_name=``)
is not narrowed.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Tup

#: the boosters whose early stopping and best iteration follow the last evaluation set (see the module docstring)
LAST_SET_LIBRARIES = ("xgboost", "catboost")


def _entries(node: ast.expr) -> list[ast.expr] | None:
    """The entries of a list of evaluation sets (``[(dval, 'eval'), (dtrain, 'train')]``, ``[pool_a, pool_b]``);
    ``None`` for one set given alone (``(X_val, y_val)``, ``valid_pool``)."""
    if isinstance(node, ast.List) and node.elts:
        return node.elts
    if isinstance(node, ast.Tuple) and node.elts and all(isinstance(e, (ast.Tuple, ast.List)) for e in node.elts):
        return node.elts
    return None


def last_watched(sets: list[ast.expr], bindings: dict[str, list[ast.expr]], line: int) -> ast.expr | None:
    """The last entry of the one evaluation-set list in ``sets`` (a literal, or a name bound to one before ``line``,
    ``watchlist = [...]``); ``None`` when there is no such list (one set, several arguments, an unread value)."""
    if len(sets) != 1:
        return None
    node = sets[0]
    if isinstance(node, ast.Name):
        before = [v for v in bindings.get(node.id, []) if v.lineno < line]
        if not before:
            return None
        node = before[-1]
    entries = _entries(node)
    return entries[-1] if entries else None


def last_value(value: Any) -> Any:
    """The analysis' value of the last entry of an evaluation-set list (a :class:`Tup`), for a list
    :func:`last_watched` narrowed; else ``value``."""
    if isinstance(value, Tup) and value.items:
        return value.items[-1]
    return value


__all__ = ["LAST_SET_LIBRARIES", "last_value", "last_watched"]
