"""A clustering's input matters only as far as the clustering's output does.

``KMeans().fit_predict(topics)`` turns a fit's output (NMF or LDA topics over every row) into cluster ids. When those
ids only become the labels a model predicts (``train_test_split(X, clusters)``, ``model.fit(X_tr, y_tr)``), the
topics shaped the target, not a feature: no statistic of the held-out rows reaches the model's inputs, so the
upstream fit is not a feature leak (it stays an ``info`` finding, like any fit whose output reaches no model). When
the ids reach a model as a feature, a split's rows, or a saved file, the clustering is reached through its taints
as before, and so is every fit that fed it.

Used by :mod:`faultlib.detect.data.leakage.semantics` (where a clusterer predicts) and ``static`` (at the end).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.values import Data


class ClusterInputs:
    """Fits that feed a clustering, reached when the clustering is (needs ``_reached``)."""

    _cluster_inputs: dict[tuple[int, int], set[tuple[int, int]]]

    def _feeds_clustering(self, x: Data | None, node: ast.Call) -> None:
        """``x`` is the input of the clusterer call ``node`` (whose fit site is ``node``'s line and column + 1)."""
        if x is not None:
            site = (node.lineno, node.col_offset + 1)
            self.__dict__.setdefault("_cluster_inputs", {}).setdefault(site, set()).update(
                (f.line, f.column) for f in x.taints)

    def _through_clusterings(self, reached: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """``reached`` with every fit that fed a reached clustering (transitively)."""
        out, inputs = set(reached), self.__dict__.get("_cluster_inputs", {})
        todo = [s for s in out if s in inputs]
        while todo:
            for fed in inputs[todo.pop()] - out:
                out.add(fed)
                if fed in inputs:
                    todo.append(fed)
        return out


__all__ = ["ClusterInputs"]
