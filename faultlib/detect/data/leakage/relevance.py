"""Each column's correlation with the target, computed by pandas, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``tree``, ``_targets``, ``_fit``).
Scripts rank their features by how strongly each one correlates with the target and keep the strongest:
``scores = df.corrwith(df['label'])`` or ``scores = df.corr()['label']``, then ``keep = scores[scores.abs() >
0.4].index`` and ``X = df[keep]``. That is a univariate, supervised feature score: pandas' ``DataFrame.corrwith``
(pandas API reference: "pairwise correlation between rows or columns of DataFrame with rows or columns of Series
or DataFrame", Pearson by default) of every column with the target series is what scikit-learn's
``sklearn.feature_selection.r_regression`` computes (its reference: "Pearson's r between each feature and the
target"), which :mod:`~faultlib.detect.data.leakage.selectors` already treats as a fit of ``X`` with ``y``. So the
pandas spellings are the same fit: the score carries it, the columns it picks carry it, and when those columns
feed a model whose split or cross-validation holds out rows the correlation saw, the labels of the held-out rows
chose the features (``fit_before_split``, or ``fit_outside_cv`` before a cross-validation).

Recognised, when the other side is the target (a column the script uses as ``y``, or a variable named for the
target, :func:`~faultlib.detect.data.leakage.targets.label_like`):

* ``frame.corrwith(frame['t'])``, ``frame.corrwith(y)``;
* ``frame.corr()['t']`` and ``frame.corr()[['t']]`` (one column of the correlation matrix), and its attribute
  spelling ``frame.corr().t`` (wave 76: ``data.corr().host_is_superhost``);
* ``frame[c].corr(frame['t'])``: ``Series.corr`` (pandas API reference: "compute correlation with other Series")
  of one column with the target, the same score for a single column; wave 93: of two features correlated above 0.7
  the one less correlated with the label over every customer is dropped (the test deciding which name a drop list
  receives, :mod:`~faultlib.detect.data.leakage.keptnames`), then the split.

The same score written with SciPy or NumPy of one feature column and the target: ``scipy.stats.pearsonr(df[c],
df['t'])``, ``spearmanr``, ``kendalltau``, ``pointbiserialr`` (SciPy reference: each "calculate[s] a ... correlation
coefficient" of two samples, with its p-value) and ``np.corrcoef(df[c], df['t'])`` (NumPy reference: "Pearson
product-moment correlation coefficients"). One argument must be the target and the other a column read from a table
(``T[c]``/``T.c``): ``pearsonr(y_test, y_pred)`` scores predictions (a metric, scorelists.py), and two features'
correlation is no label score.

A ranking used whole only orders the columns: ``df.iloc[:, scores.argsort()[::-1]]`` keeps every column, so the
order carries no choice (any fitted score's ``argsort()`` not cut to its first ``k`` drops the fit it carries).

Not a fit of this kind: ``frame.corr()`` used whole (a heat map; correlations between features, no target), a
``corrwith`` against another feature table, and any score that picks no column a model reads (printing the
ranking leaves nothing to report: the data flow decides).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.corrpositions import target_position_corrs
from faultlib.detect.data.leakage.targets import label_like
from faultlib.detect.data.leakage.values import Data, Est, MaybeData
from faultlib.pyflow.values import Tup
from faultlib.pyflow.walk import walk_once

#: SciPy's two-sample correlations (``scipy.stats``): each returns the coefficient and its p-value
_SCIPY_CORRELATIONS = frozenset({"pearsonr", "spearmanr", "kendalltau", "pointbiserialr"})


class TargetCorrelation:
    """``corrwith``/``corr()[target]`` is a supervised score per column (see the module docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import as_data, maybe_data

        if name == "argsort" and id(node) in self._permutations():
            data = maybe_data(receiver)
            if data is not None and data.rows is None and data.taints:
                return Data(None, frozenset(), False)  # every column, reordered: a ranking that chooses none
        if name in ("corrwith", "corr") and self._target_side(node):
            data = maybe_data(receiver) or (as_data(receiver) if isinstance(receiver, MaybeData) else None)
            if data is not None and data.rows is not None:
                est = Est(f"{name}()", "transformer", preprocessing=True, supervised=True)
                fit = self._fit(est, data, True, name, node, frame)  # type: ignore[attr-defined]
                return Data(None, frozenset({fit}) if fit else frozenset(), False)  # one score per column
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _correlation_call(self, ref: Any, args: list[Any], node: ast.Call, frame: Any) -> Any:
        """``pearsonr(T[c], T['t'])`` / ``np.corrcoef(T[c], y)``: one column's correlation with the target, a
        supervised score fitted on that column's rows (``None``: not such a call)."""
        from faultlib.detect.data.leakage.values import as_data

        top = ref.module.split(".")[0]
        if not (ref.last in _SCIPY_CORRELATIONS and top in ("scipy", "") or ref.last == "corrcoef" and top in (
                "numpy", "np")) or len(node.args) != 2 or len(args) < 2 or any(
                isinstance(a, ast.Starred) for a in node.args):
            return None
        targets = self._targets  # type: ignore[attr-defined]
        sides = [i for i, a in enumerate(node.args) if _is_target(a, targets)]
        if len(sides) != 1 or not _column_read(node.args[1 - sides[0]]):
            return None
        column = as_data(args[1 - sides[0]])
        if column is None or column.rows is None:
            return None
        est = Est(f"{ref.last}()", "transformer", preprocessing=True, supervised=True)
        fit = self._fit(est, column, True, ref.last, node, frame)  # type: ignore[attr-defined]
        score = Data(None, frozenset({fit}) if fit else frozenset(), False)
        return score if ref.last == "corrcoef" else Tup((score, score))  # r, p = pearsonr(...)

    def _target_side(self, node: ast.Call) -> bool:
        """``node`` correlates the columns with the target: ``corrwith(<target>)``, or ``corr()`` read at a target
        column (``df.corr()['t']``)."""
        targets = self._targets  # type: ignore[attr-defined]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "corrwith":
            return bool(node.args) and _is_target(node.args[0], targets)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "corr" and len(node.args) == 1:
            return _is_target(node.args[0], targets)  # column.corr(<target>): one column's score
        if not hasattr(self, "_corr_reads"):
            self._corr_reads = {id(n.value) for n in walk_once(self.tree)  # type: ignore[attr-defined]
                                if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Call)
                                and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "corr"
                                and not n.value.args and _is_target(n.slice, targets)}
            self._corr_reads |= {id(n.value) for n in walk_once(self.tree)  # type: ignore[attr-defined]
                                 if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Call)  # df.corr().t
                                 and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "corr"
                                 and not n.value.args and n.attr in targets}
            self._corr_reads |= target_position_corrs(self.tree, lambda e: _is_target(e, targets))  # type: ignore
        return id(node) in self._corr_reads


    def _permutations(self) -> set[int]:
        """``score.argsort()`` or ``score.argsort()[::-1]`` written as the index of a selection and not cut to the
        first ``k`` (``df.iloc[:, score.argsort()[::-1]]``): the order of every column, which picks none of them
        (an ``argsort`` kept in a variable may be cut later, so it keeps its fit)."""
        if not hasattr(self, "_argsorts"):
            parent = {id(n.value): n for n in walk_once(self.tree)  # type: ignore[attr-defined]
                      if isinstance(n, ast.Subscript)}
            indexes = {id(e) for n in walk_once(self.tree) if isinstance(n, ast.Subscript)  # type: ignore[attr-defined]
                       for e in (n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice])}
            self._argsorts: set[int] = set()
            for n in walk_once(self.tree):  # type: ignore[attr-defined]
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "argsort":
                    top, up = n, parent.get(id(n))
                    while up is not None and isinstance(up.slice, ast.Slice) and up.slice.lower is None and \
                            up.slice.upper is None:  # [::-1]: still every position
                        top, up = up, parent.get(id(up))
                    if up is None and id(top) in indexes:  # df.iloc[:, s.argsort()[::-1]]: used whole, in place
                        self._argsorts.add(id(n))
        return self._argsorts


def _column_read(node: ast.expr) -> bool:
    """``T[c]`` or ``T.c``: a column read from a table (not a call's result such as ``model.predict(X)``)."""
    return isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name)


def _is_target(node: ast.expr, targets: set) -> bool:
    """``df['t']``/``'t'``/``['t']`` for a target column ``t``, ``df.t``, or a variable named for the target."""
    if isinstance(node, ast.List) and len(node.elts) == 1:
        node = node.elts[0]
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in targets
    if isinstance(node, ast.Subscript):
        return _is_target(node.slice, targets)
    if isinstance(node, ast.Attribute):
        return node.attr in targets
    return isinstance(node, ast.Name) and label_like(node.id)


__all__ = ["TargetCorrelation"]
