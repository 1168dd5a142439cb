"""A ranking of the columns learnt in a cross-validation loop and used after it, for the static leakage analysis.

Feature-selection scripts fit a model on each fold's training part, add up (or average) its importances over the
folds, and keep the best-ranked columns::

    imp = np.zeros(X.shape[1])
    for tr, _ in KFold(5).split(X):
        imp += RandomForestRegressor().fit(X.iloc[tr], y[tr]).feature_importances_
    keep = list(pd.Series(imp, index=X.columns).nlargest(10).index)
    cross_val_score(model, X[keep], y, cv=KFold(5))          # the same rows, scored on the kept columns

Each fold's model saw the labels of k-1 folds, and the folds together cover every row, so the summed ranking was
chosen with every row's label: the columns the cross-validation then scores were chosen with the labels of its own
validation folds, which biases its score (Ambroise & McLachlan, PNAS 99(10), 2002, "Selection bias in gene
extraction on the basis of microarray gene-expression data": the selection must be redone inside each fold). A
ranking read inside the loop (the fold's own model choosing the fold's own columns) stays in the fold; one carried
out of the loop is the fold fits taken together, a fit on all the rows the loop split. Where a split's training
part already counts as every row for a later cross-validation (:func:`.values.training_part_of`), so here does a
fold loop's training part once the ranking learnt from it outlives the loop.

Reported at the fit inside the loop, ``fit_outside_cv``, when a later cross-validation of the rows the loop split
(or of a part of them) receives the columns the ranking chose.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import (
    Data,
    Est,
    Rows,
    covers,
    maybe_data,
    parts,
)
from faultlib.pyflow.values import Tup
from faultlib.pyflow.walk import tree_fact, walk_once


def _loop_spans(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """``for`` line -> (first line, last line) of every ``for`` loop."""
    return tree_fact(tree, lambda t: {n.lineno: (n.lineno, n.end_lineno or n.lineno)
                                      for n in walk_once(t) if isinstance(n, (ast.For, ast.AsyncFor))})


def escaped_fold(fit: Any, data: Data, line: int, tree: ast.Module) -> bool:
    """``fit`` was made on a fold loop's training part of rows that hold a part of ``data`` (or lie inside it), and
    ``line`` lies outside that loop: what the fit learnt has left its fold."""
    spans = _loop_spans(tree)
    for fit_part in parts(fit.rows):
        for i, step in enumerate(fit_part.steps):
            if step.kind != "fold" or step.part != "train":
                continue
            span = spans.get(step.line)
            if span is None or span[0] <= line <= span[1]:
                continue
            split = Rows(fit_part.root, fit_part.steps[:i])  # the rows the loop's folds part
            if any(covers(split, p) or covers(p, split) for p in parts(data.rows)):
                return True
    return False


class FoldRankings:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (before
    :class:`~faultlib.detect.data.leakage.semantics.EstimatorSemantics`, whose ``_check_cv`` and ``_emit`` it
    uses; see the module docstring)."""

    def _importances(self, est: Est) -> Data | None:
        out = super()._importances(est)  # type: ignore[misc]
        if out is not None and est.fit is not None and est.fit.loops:
            vars(self).setdefault("_fold_rankings", set()).add(est.fit.uid)
        return out

    def _averaged_ranking(self, value: Any) -> Data | None:
        """``np.mean(found, axis=0)`` of a list the fold loop filled with its models' importances: the averaged
        ranking, with every fold's fit (a list of the folds' predictions is averaged away instead: foldlists.py)."""
        ranked = vars(self).get("_fold_rankings")
        if not ranked or not isinstance(value, Tup) or not value.items:
            return None
        found = [maybe_data(i) for i in value.items]
        if not all(d is not None and d.rows is None and d.taints and all(f.uid in ranked for f in d.taints)
                   for d in found):
            return None
        return Data(None, frozenset().union(*(d.taints for d in found if d is not None)), False)

    def _check_cv(self, data: Data | None, line: int, how: str) -> None:
        super()._check_cv(data, line, how)  # type: ignore[misc]
        ranked = vars(self).get("_fold_rankings")
        if data is None or not ranked:
            return
        for fit in data.taints:
            if fit.uid in ranked and escaped_fold(fit, data, line, self.tree):  # type: ignore[attr-defined]
                self._emit("fit_outside_cv", fit, line=line, data=data,  # type: ignore[attr-defined]
                           why=f"its ranking, learnt on every fold of that loop and used after it, chooses the columns "
                               f"that {how} on {self.smap.describe(line)} cross-validates over those rows: "  # type: ignore[attr-defined]
                               "every fold is scored on columns its own labels chose")


__all__ = ["FoldRankings", "escaped_fold"]
