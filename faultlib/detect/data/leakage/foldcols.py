"""Folds kept in a column, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. Competition code often assigns every training
row a fold number once (``df['kfold'] = fold`` from a ``KFold`` loop, or a saved ``CVindices.csv`` merged in) and
then cross-validates by hand::

    for i in range(1, folds + 1):
        build = train[train['CVindices'] != i]   # the fold's training rows
        valid = train[train['CVindices'] == i]   # the fold's held-out rows, scored

A row selection that compares a fold column (its name says ``fold`` or ``cv``: ``kfold``, ``fold_id``,
``CVindices``) with ``==`` keeps one fold's held-out rows; with ``!=`` the other folds, its training rows. Both
are a cross-validation fold (kind ``fold``, one loop per column), whatever the compared value is (a loop variable, a
helper's parameter, a constant fold): so a fit on every row before such a loop is ``fit_outside_cv``, as it is
before ``for tr, te in KFold(...).split(X)``. A column with another name (``df[df.year == y]``, ``df[df.city !=
c]``) is an ordinary filter: a group, not a fold.

The folds themselves are often made once and handed over (``x, y, cv = load_train_data()``, a pickled list of
index pairs): ``for train, test in cv:`` then iterates pairs the analysis cannot see built. A loop whose target is
two names and whose iterable (or a slice of it, ``cv[:1]``) is named for folds (:data:`_FOLD_COLUMN`: ``cv``,
``folds``, ``list_cv``, ``kfold``) is read as a cross-validation loop (:func:`named_fold_loop`), as
``for tr, te in kf.split(X)`` is; so is the same loop enumerated, ``for k, (tr, te) in enumerate(cv_splits)``, over
the index pairs a helper of the script cut by hand (issue 17, wave 85: a scaler fitted on each fold's training
rows, inside such a loop, was taken for a fit on every row because the pairs were not read as folds).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage.values import Data, FoldIter, Step, new_id, parts
from faultlib.pyflow.values import UNKNOWN

_FOLD_COLUMN = re.compile(r"fold|^cv|_cv|cv_?(id|ind|idx|index|split|set)", re.IGNORECASE)


def named_fold_loop(node: ast.For) -> bool:
    """``for train, test in cv:`` / ``in folds[:1]`` / ``for k, (train, test) in enumerate(cv_splits):``: two
    index names over an iterable named for folds."""
    target, it = node.target, node.iter
    if enumerated_pair(node):
        target, it = target.elts[1], it.args[0]  # type: ignore[attr-defined]
    if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice):
        it = it.value
    return isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(
        isinstance(e, ast.Name) for e in target.elts) and isinstance(it, ast.Name) and bool(_FOLD_COLUMN.search(it.id))


def enumerated_pair(node: ast.For) -> bool:
    """``for k, (a, b) in enumerate(x)``: a counter and a pair, over one iterable."""
    target, it = node.target, node.iter
    return isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Tuple) and \
        isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and \
        len(it.args) == 1 and not it.keywords


def fold_comparison(index_node: ast.expr) -> tuple[str, str] | None:
    """``(column, part)`` when ``index_node`` is ``t['fold'] == v`` (part ``test``) or ``t.fold != v`` (``train``)
    with a fold column (see the module docstring); ``None`` for any other index."""
    if not isinstance(index_node, ast.Compare) or len(index_node.ops) != 1 or not isinstance(
            index_node.ops[0], (ast.Eq, ast.NotEq)):
        return None
    left, right = index_node.left, index_node.comparators[0]
    column = _column(left) or _column(right)
    other = right if _column(left) else left
    if column is None or not _FOLD_COLUMN.search(column) or isinstance(other, ast.Constant) and isinstance(
            other.value, str):
        return None
    return column, "test" if isinstance(index_node.ops[0], ast.Eq) else "train"


def _column(node: ast.expr) -> str | None:
    """``t['col']`` / ``t.col`` (a column of a table held in a name) -> ``col``."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(
            node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return None


def fold_positions(base: Any) -> Any:
    """``train[train['CVindices'] != i].index``: the labels of one fold's rows, kept as those rows (no values, no
    fits) so that ``X[build, :]`` / ``y.iloc[build]`` with ``build = ....index.tolist()`` take the same fold part of
    another array, as an index from ``KFold.split`` does. Any other ``.index`` stays unknown (``UNKNOWN``)."""
    found = parts(base.rows) if isinstance(base, Data) else ()
    if len(found) == 1 and found[0].steps and found[0].steps[-1].kind == "fold":
        return Data(found[0], frozenset(), base.test)
    return UNKNOWN


class FoldColumns:
    """Row selections by a fold column are cross-validation folds (see the module docstring); folds kept in a list
    (``folds = list(skf.split(X, y))``, then ``for i, (tr, te) in enumerate(folds)``) are still the folds."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], FoldIter):
            return args[0]
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _fold_column_step(self, index_node: ast.expr, line: int) -> Step | None:
        """The fold step ``data[index_node]`` makes, or ``None`` when the index is not a fold comparison."""
        found = fold_comparison(index_node)
        if found is None:
            return None
        if not hasattr(self, "_fold_columns"):
            self._fold_columns: dict[str, int] = {}
        column, part = found
        ident = self._fold_columns.setdefault(column.lower(), new_id())
        return Step("fold", ident, part, line=line)


__all__ = ["FoldColumns", "enumerated_pair", "fold_comparison", "fold_positions", "named_fold_loop"]
