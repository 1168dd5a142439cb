"""Fold loops that train nothing, for the static leakage analysis.

Competition code uses a splitter's folds for two different things. A cross-validation loop trains a model on all
folds but one and scores the one left out. An *out-of-fold encoding* loop only computes, for each fold, a statistic
of the other folds and writes it into that fold's rows::

    for tr_idx, val_idx in kf.split(train):
        means = train.iloc[tr_idx].groupby(col)[target].mean()
        train.loc[val_idx, col + '_te'] = train.iloc[val_idx][col].map(means)

No fold is scored there, so a statistic of every row computed before such a loop is not "fitted outside the
cross-validation" (scikit-learn user guide, "Cross-validation: evaluating estimator performance": the estimator is
trained on the training folds and evaluated on the left-out fold; wave 56: quantile bins and counts reported
against an encoding loop whose frame no model ever read). A loop over ``split(...)`` counts as cross-validation
unless its body computes an encoding (``groupby``, ``mean``, ``map``...) and makes no call that can train or
score: no ``fit``/``predict``/``score``/``train``-like method and no call of a function or class the script defines
(which may train). A loop that only numbers the folds (``df.loc[va, 'fold'] = i``) prepares a cross-validation by
the fold column and stays one. ``enumerate``/``zip`` around the split are looked through.

Nor is a loop that trains nothing and leaves nothing behind a cross-validation: its body only binds names (the
folds' rows, ``X_k = X[X.index.isin(tr)]``), stores into no table or attribute, grows no list, and nothing after
the loop reads what it bound (a wave-95 augmentation notebook ends on such a loop, its model never written): no
fold is scored, so no statistic computed before it is scored on rows it saw.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: calls that train, predict or score (any library): a loop making one may be a cross-validation
_TRAINING = frozenset({
    "fit", "fit_transform", "fit_predict", "fit_resample", "partial_fit", "predict", "predict_proba",
    "predict_log_proba", "decision_function", "score", "train", "evaluate", "cross_val_score", "cross_validate",
    "cross_val_predict", "backward", "step",
})


#: the reductions an out-of-fold encoding computes from the other folds (a loop with none is no encoding loop: a
#: loop that only numbers the folds, ``df.loc[va, 'fold'] = i``, prepares a cross-validation and stays one)
_ENCODING = frozenset({"groupby", "agg", "aggregate", "mean", "median", "sum", "count", "value_counts", "map"})


def _encodes(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _ENCODING
               for stmt in body for n in ast.walk(stmt))


def _own_functions(tree: ast.Module) -> frozenset[str]:
    return frozenset(n.name for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef)))


def _may_train(body: list[ast.stmt], own: frozenset[str]) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if not isinstance(n, ast.Call):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(
                n.func, ast.Name) else None
            if name is None or name in _TRAINING or name in own:
                return True
    return False


#: methods that grow or change a container in place: a loop calling one leaves something behind
_GROWING = frozenset({"append", "extend", "update", "insert", "add", "setdefault", "__setitem__"})


def _leaves_nothing(loop: ast.For, tree: ast.Module) -> bool:
    """The loop's body only binds names: no store into a subscript or attribute, no call growing a container, and
    no name it binds (its targets included) is read after the loop."""
    bound: set[str] = set()
    for stmt in [loop, *loop.body, *loop.orelse]:
        for n in ast.walk(stmt) if stmt is not loop else ast.walk(loop.target):
            if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store):
                return False
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWING:
                return False
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                return False
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                bound.add(n.id)
    end = getattr(loop, "end_lineno", loop.lineno)
    return not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in bound and n.lineno > end
                   for n in walk_once(tree))


def encoding_only_splits(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``split(...)`` calls that are the iterable of a ``for`` loop whose body trains and scores
    nothing (see the module docstring)."""
    own = _own_functions(tree)
    out: set[int] = set()
    for loop in walk_once(tree):
        if not isinstance(loop, ast.For) or _may_train(loop.body + loop.orelse, own) or not (
                _encodes(loop.body) or _leaves_nothing(loop, tree)):
            continue
        out.update(id(c) for c in ast.walk(loop.iter) if isinstance(c, ast.Call) and isinstance(
            c.func, ast.Attribute) and c.func.attr == "split")
    return frozenset(out)


class EncodingFolds:
    """``_scores_folds``: whether a ``split(...)`` call feeds a loop that may train and score (a mixin of the
    analyzer: it needs ``tree``)."""

    def _scores_folds(self, node: ast.Call) -> bool:
        if not hasattr(self, "_encoding_splits"):
            self._encoding_splits = encoding_only_splits(self.tree)  # type: ignore[attr-defined]
        return id(node) not in self._encoding_splits


__all__ = ["EncodingFolds", "encoding_only_splits"]
