"""Arrays filled fold by fold: an out-of-fold array holds every row of the table its folds cut, for the static
leakage analysis.

Out-of-fold encodings and predictions allocate an empty array and fill the rows of each validation fold in turn::

    encoded = np.zeros(len(train))
    for fit_idx, enc_idx in folds.split(train):
        means = train.iloc[fit_idx].groupby(col)[label].mean()
        encoded[enc_idx] = train.iloc[enc_idx][col].map(means).fillna(prior)   # prior = train[label].mean()
    train["te_" + col] = encoded

After the loop every row of ``train`` has been written once (scikit-learn user guide, "Cross-validation iterators":
the test folds of a K-fold split partition the rows), so the array is a column of ``train``: its rows are
``train``'s, and what shaped the stored values (``prior``: the mean label of every row, validation folds included)
shapes that column. Without this the store into the array was dropped (it held no data yet, the stored rows were one
fold's), and a statistic that reached the model only through such a column went unseen (issue 17 wave 94: the
global label mean that fills and smooths an out-of-fold target encoding before ``lightgbm.cv``).

:func:`filled_by_folds` gives the array's new value when a store ``arr[idx] = value`` puts into an array no data has
reached yet (``np.zeros``, ``np.empty``...) the rows its index chooses, the index being bound by a loop over a
splitter's ``split(...)``: the value's fits, on the rows before that choice. Out-of-fold *predictions*
(``oof[va] = model.predict(X[va])``, :func:`~.predbuffers.is_prediction`) are left as they were: their fits are the
model's inputs, already judged where the model is fitted.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.predbuffers import is_prediction
from faultlib.detect.data.leakage.values import Data, MaybeData, Rows
from faultlib.pyflow.walk import walk_once


def _fold_indices(tree: ast.AST) -> set[str]:
    """Names a ``for`` over a splitter's ``split(...)`` (maybe in ``enumerate``) binds: the folds' row indices."""
    out: set[str] = set()
    for loop in walk_once(tree):
        if isinstance(loop, ast.For) and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                                             n.func.attr == "split" for n in ast.walk(loop.iter)):
            out.update(n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name))
    return out


def filled_by_folds(tree: ast.AST, target: ast.Subscript, held: Any, new: Data | None) -> Data | None:
    """``held``'s value after ``target = new`` (``arr[idx] = ...``) when ``held`` is an unfilled array, ``idx`` a
    fold's indices and ``new`` rows chosen by them (see the module docstring); ``None`` otherwise."""
    if new is None or not new.taints or not isinstance(target.slice, ast.Name) or not isinstance(
            held, MaybeData) or held.used_as_data or held.from_file or target.slice.id not in _fold_indices(tree):
        return None
    if any(isinstance(n, ast.Assign) and any(t is target for t in n.targets) and is_prediction(n.value)
           for n in walk_once(tree)):
        return None  # oof[va] = model.predict(X[va]): out-of-fold predictions, whose fits the model already read
    rows = new.rows
    if not isinstance(rows, Rows) or not rows.steps or rows.steps[-1].kind not in ("fold", "filter") or (
            rows.steps[-1].kind == "fold" and rows.steps[-1].part != "test"):
        return None
    return Data(Rows(rows.root, rows.steps[:-1]), new.taints, new.test)


__all__ = ["filled_by_folds"]
