"""A ranking averaged over repeated fits by Python's ``sum``, for the static leakage analysis.

Feature-selection scripts fit a forest several times and average its importances before ranking the columns::

    runs = []
    for _ in range(100):
        runs.append(RandomForestClassifier().fit(X, y).feature_importances_)
    mean_importance = sum(runs) / len(runs)          # the elementwise mean of the runs' vectors

Each vector is a ranking read from a fit on the rows (:mod:`.selectors`); their sum adds the arrays elementwise
(Python's ``sum`` starts at ``0`` and adds each item with ``+``; NumPy adds arrays elementwise), so it is the same
kind of ranking, chosen by the same fits. The analysis read ``sum(...)`` as a plain number and the columns kept by
the averaged ranking lost the fits that chose them (wave 61: importances averaged over repeated forests, the top
columns then scored by leave-one-out). ``np.mean(runs, axis=0)`` was already followed.

Source: Python library reference, built-in ``sum``; NumPy, "Broadcasting" (``+`` of equal-shape arrays).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.values import Tup


def summed_ranking(name: str, args: list[Any]) -> Data | None:
    """``sum(vectors)`` where every item is a vector a fit produced (no rows, some fits): that ranking, with every
    item's fits; ``None`` for anything else (a sum of rows or numbers stays what it was)."""
    if name != "sum" or not args:
        return None
    items = args[0].items if isinstance(args[0], Tup) else (args[0],)
    found = [maybe_data(i) for i in items]
    if not found or not all(d is not None and d.rows is None and d.taints for d in found):
        return None
    return Data(None, frozenset().union(*(d.taints for d in found)), False)


__all__ = ["summed_ranking"]
