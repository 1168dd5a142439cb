"""Statistics of the training rows written into the test table only, for the static leakage analysis.

The right way to fill or encode the test rows is with the training rows' statistics::

    means = train.groupby("district")["area"].mean()
    train["district_area"] = train["district"].map(means)
    test["district_area"] = test["district"].map(means).fillna(train["area"].mean())

``train["area"].mean()`` there fills only the test table's column (the districts the training rows never saw). It
is the training statistic applied to the held-out rows, as ``scaler.transform(X_test)`` is. The analysis keeps the
fits that shaped a table as one set per table, not per row; when a later stage stacks the two tables and cuts them
apart again (``pd.concat([X_train, X_test])`` ... ``.iloc[:len(X_train)]``), that set cannot tell the test side's
fill from the training side's own features, and the fallback looked like a fit outside the cross-validation of the
training rows (wave 59: four such fallbacks in a house-prices pipeline, seen once its stages were joined).

:func:`test_side_fills` names the calls inside the value of an assignment whose every target is an item of a
test-named table (``test[...] = ...``, :func:`~faultlib.detect.data.leakage.vocab.looks_like_test`). A statistic
there over rows that are not held out (:mod:`.design`) is not taken for a fit; over the test rows themselves, or
over train and test stacked, it still is (``fit_on_test``).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once


def _test_item(target: ast.expr) -> bool:
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and vocab.looks_like_test(
        target.value.id)


def test_side_fills(tree: ast.AST) -> frozenset[int]:
    """Ids of the calls in the value of an assignment to items of a test-named table only."""
    out: set[int] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and all(_test_item(t) for t in node.targets):
            out.update(id(n) for n in ast.walk(node.value) if isinstance(n, ast.Call))
    return frozenset(out)


__all__ = ["test_side_fills"]
