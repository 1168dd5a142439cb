"""Statistics written by hand over a helper's held-out parameter, returned as features, for the static leakage
analysis.

A module of feature helpers (``fe_cards.py``, ``features/magic.py``) is imported by the scripts that train and
predict; it calls none of its own functions, so each is analysed on opaque arguments named by its parameters
(:mod:`faultlib.detect.data.leakage.returned`). What such a helper returns reaches its caller's model only
*weakly*: enough for an estimator's fit, not for a statistic written by hand, since a helper may return
``df.mean()`` for a report. One shape is no report: a statistic whose rows include the parameter named for the
held-out rows (``test``, ``X_test``), written into a **table** the helper returns (rows, not a number)::

    def stats(train, test):
        counts = pd.concat([train['card1'], test['card1']]).value_counts()
        train['card1_count'] = train['card1'].map(counts)
        test['card1_count'] = test['card1'].map(counts)
        return train, test

Such a table is a feature frame for the model its caller trains and predicts with: count, frequency and group
encodings over train and test stacked, and the test file's own statistics, are fits over the test rows (Kaufman
et al., "Leakage in data mining", TKDD 2012, section 2: features built with knowledge of the rows to predict;
the house policy since stop 30 for counts over train and test stacked). A returned number (an error's mean over
``X_test``) is a score, not a feature, and stays weak.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import FitRef, maybe_data, parts
from faultlib.pyflow.values import Bound, Tup


def held_out_statistics(value: Any, func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[tuple[int, int]]:
    """The sites of the hand-written statistics over ``func``'s held-out parameters that ``value``, what it returns,
    carries in a table (or in a tuple of tables)."""
    if isinstance(value, Tup):
        return set().union(*(held_out_statistics(item, func) for item in value.items))
    data = maybe_data(value.receiver if isinstance(value, Bound) else value)
    if data is None or data.rows is None:
        return set()
    held_out = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
                if vocab.looks_like_test(a.arg)}
    return {(f.line, f.column) for f in data.taints if _over_parameters(f, held_out)}


def _over_parameters(fit: FitRef, held_out: set[str]) -> bool:
    return fit.handwritten and any(p.root.name in held_out for p in parts(fit.rows))


__all__ = ["held_out_statistics"]
