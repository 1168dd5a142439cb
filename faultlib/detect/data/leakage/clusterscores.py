"""A clustering used as a classifier: its cluster ids scored against labels, for the static leakage analysis.

A clusterer's ``predict``/``fit_predict`` gives cluster ids, which the analysis reads as a transformation of the
rows (a new feature, :mod:`.clusterreach`). Intrusion-detection and anomaly notebooks use k-means as a classifier
instead: each cluster is mapped to the class most of its training rows carry, the test rows' ids are mapped the same
way, and the result is scored against the test labels::

    def objective(params):
        km = MiniBatchKMeans(n_clusters=int(params["k"]))
        seen = km.fit_predict(X_train)
        ids = km.predict(X_test)                      # <- reported here
        ...                                           # clusters -> classes by the training labels, ids mapped
        return 1 - accuracy_score(y_test, ids)

    fmin(fn=objective, space=..., algo=tpe.suggest)   # the number of clusters chosen by that test accuracy

Here ``predict`` is a model's prediction: a metric of labels reads what it returned (scikit-learn's metrics take
``(y_true, y_pred)``, API reference ``sklearn.metrics``). So the checks of a model scoring rows apply to it: a loop
or an optimizer objective that keeps the best candidate by the test rows' score chose the number of clusters on
them (:mod:`.choices`, ``tuned_on_test``; issue 17 wave 96: a k-means IDS whose ``n_clusters`` was tuned by
hyperopt and scikit-optimize on the test accuracy, then typed back in).

:func:`scored_predictions` finds, syntactically and per function (or module level), the lines of ``predict`` and
``fit_predict`` calls whose result is bound to a name that a later metric call of the same scope takes as an
argument (``accuracy_score(y_test, ids)``, ``classification_report(...)``, ``confusion_matrix(...)``). Cluster ids
that only become a feature, a plot's colours or a new label are not such calls and stay what they were, and so are
ids scored by an internal index (``silhouette_score(X, ids)``: the rows and the ids, no label).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.scorelists import is_metric
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.values import Est, as_data
from faultlib.pyflow.walk import scope_nodes, tree_fact, walk_once

_PREDICTS = frozenset({"predict", "fit_predict"})
#: cluster-quality scores that read the rows and the ids, never labels (scikit-learn user guide 2.3.11,
#: "Clustering performance evaluation": internal indices); choosing k by them looks at no label
_INTERNAL = frozenset({"silhouette_score", "calinski_harabasz_score", "davies_bouldin_score"})


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def scored_predictions(tree: ast.Module) -> frozenset[int]:
    """Lines of ``x = m.predict(...)`` / ``m.fit_predict(...)`` whose ``x`` a later metric call of the same scope
    reads (see the module docstring); computed once per tree."""
    return tree_fact(tree, _scored_predictions)


def _scored_predictions(tree: ast.Module) -> frozenset[int]:
    out: set[int] = set()
    for scope in _scopes(tree):
        nodes = scope_nodes(scope)  # (a nested function is a scope of its own)
        bound = [(n.value.lineno, t.id) for n in nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                 and isinstance(n.value.func, ast.Attribute) and n.value.func.attr in _PREDICTS
                 for t in n.targets if isinstance(t, ast.Name)]
        if not bound:
            continue
        metrics = [(n.lineno, {a.id for a in n.args if isinstance(a, ast.Name)}) for n in nodes
                   if isinstance(n, ast.Call) and is_metric(n) and len(n.args) >= 2 and call_name(n) not in _INTERNAL]
        out |= {line for line, name in bound if any(m > line and name in read for m, read in metrics)}
    return frozenset(out)


class ClusterScores:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (before
    :class:`~faultlib.detect.data.leakage.semantics.EstimatorSemantics`): a clusterer's prediction scored against
    labels is checked as a model's (see the module docstring)."""

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        out = super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        if est.cls in vocab.CLUSTERERS and name in _PREDICTS and \
                node.lineno in scored_predictions(self.tree):  # type: ignore[attr-defined]
            x = as_data(args[0] if args else kwargs.get("X"))
            if x is not None:
                self._check_tuned(est, x, node, frame)  # type: ignore[attr-defined]
        return out


__all__ = ["ClusterScores", "scored_predictions"]
