"""The table a row stack makes of its items, written as a call or as NumPy's index-trick ``np.r_``.

``pd.concat([train, test])`` and ``np.vstack((X, X_test))`` put the rows of every item one under the other; so
does ``np.r_[X, X_test]``: NumPy documents ``r_`` as "Translates slice objects to concatenation along the first
axis" (NumPy reference, ``numpy.r_``), i.e. ``np.concatenate((X, X_test), axis=0)`` for arrays of two or more
dimensions. A fit on the result saw the rows of every item; an item named for testing (the competition test file
read on its own) stays a held-out part inside the stack, so the fit is one on train and test stacked.

One function, :func:`row_union`, shared by the call form (:mod:`~faultlib.detect.data.leakage.semantics`) and the
index form (:mod:`~faultlib.detect.data.leakage.embeddings`, where ``np.c_`` and ``np.r_`` subscripts are read).

The parts of one split stacked back in their order, ``np.concatenate((X_train, X_test))`` after
``train_test_split(X, shuffle=False)``, are the rows before the split again: the split is undone, and rows selected
from the stack (a walk-forward loop's index windows, a ``TimeSeriesSplit`` over the re-joined series) are rows of the
whole series, not "some training rows and some test rows" of it. Keeping the two parts apart in such a selection
would call every fold that trains on the early rows trained on test rows (issue 17 wave 90: load forecasters that
split off the last thirty days, scale each part, then re-join them for a walk-forward evaluation).
:func:`~faultlib.detect.data.leakage.values.rejoined_split` reads it (the items' rows are, in order, the training part and the held-out part of one split
of the same rows, nothing else), and :func:`~faultlib.detect.data.leakage.values.data_rows_child` selects from the
rows before the split. The stack itself keeps its parts: a fit on it is a fit on train and test stacked, and a model
fitted on all of it and scored on the held-out part is trained on that part.
"""

from __future__ import annotations

from faultlib.detect.data.leakage.values import Data, RowUnion, parts


def row_union(datas: list[Data], test_parts: list) -> Data:
    """The stack of ``datas`` (two or more tables), in order; the parts of an item named for testing (not by its
    rows) are added to ``test_parts`` (the analysis' list of held-out parts), so they stay held out in the stack."""
    for d in datas:
        if d.test and not d.is_test_by_rows:
            test_parts.extend(p for p in parts(d.rows) if p not in test_parts)
    rows = RowUnion(tuple(p for d in datas for p in parts(d.rows)))
    return Data(rows, frozenset().union(*(d.taints for d in datas)), False)

