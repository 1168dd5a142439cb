"""Loops over a splitter object itself: scikit-learn's pre-0.18 ``sklearn.cross_validation`` folds.

Before scikit-learn 0.18 a splitter was built from the labels or the number of rows and was itself the iterable of
folds (scikit-learn 0.17 API reference, ``sklearn.cross_validation.StratifiedKFold(y, n_folds=3, ...)``: "Provides
train/test indices to split data in train test sets"; iterating it yields ``(train, test)`` index arrays)::

    skf = list(StratifiedKFold(y, n_folds))
    for i, (train, test) in enumerate(skf):
        clf.fit(X[train], y[train])
        blend[test, j] = clf.predict_proba(X[test])[:, 1]

The analysis already binds ``for tr, te in skf`` over such a splitter to a fold's two index arrays
(:meth:`.static.Analyzer._iterate`); ``list(skf)`` / ``tuple(skf)`` only lists the same folds, so it keeps the
splitter: the ``test`` part of each pass is a fold's held-out part, not the script's test set. Issue 17, wave 74: a
text-classification competition's stacking notebook, whose blending loops were read as candidates tried on test
rows.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Est

#: builtins that list an iterable's items
_LISTERS = frozenset({"list", "tuple"})


def listed_splitter(name: str, args: list[Any], kwargs: dict[str, Any]) -> Est | None:
    """The splitter when the call is ``list(splitter)`` / ``tuple(splitter)``: its folds listed, iterated like the
    splitter itself (see the module docstring); ``None`` otherwise."""
    if name in _LISTERS and len(args) == 1 and not kwargs and isinstance(args[0], Est) and \
            args[0].category == "splitter":
        return args[0]
    return None


__all__ = ["listed_splitter"]
