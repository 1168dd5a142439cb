"""Lists of candidate models, walked item by item, for the static leakage analysis.

A model comparison keeps its candidates in a literal list or dict and walks it::

    CANDIDATES = {"ridge": (Ridge, True), "lasso": (Lasso, True), ..., "svr": (SVR, False)}   # nine or more
    built = [(name, cls(), weighted) for name, (cls, weighted) in CANDIDATES.items()]
    for name, model, _ in built:
        rows.append(evaluate_model(model, X_train, y_train, X_test, y_test))

The analysis runs a loop's body once per item of a short literal list (at most 8 items: a longer list was taken as
data, whose items are unknown); a comprehension gave one merged item. A list of *models* is neither: each item is a
candidate whose fit and score the body runs (the Python language reference, 6.2.4 "Displays for lists, sets and
dictionaries": a comprehension evaluates its element once per item of its iterable; 8.3 "The for statement" runs the
suite once per item). So:

* :func:`model_list` -- every item is a model or a model class (scikit-learn's, a known library's: ``vocab``), alone
  or in a tuple with plain constants (a name, a flag): a list of candidates;
* :data:`MAX_CANDIDATES` -- such a list is walked item by item up to this length (a loop's body, ``dict.items()``,
  and a comprehension's element, which then gives the list of what it built: ``[(n, cls()) for n, cls in ...]``).

Any other list keeps the old bound (8), and a comprehension over it its merged reading.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Const, Ref, Tup

#: the longest list of candidate models walked item by item (a loop over more takes its items as unknown)
MAX_CANDIDATES = 16


def _model(value: Any) -> bool:
    return isinstance(value, Est) and value.category in ("model", "search", "pipeline") or isinstance(
        value, Ref) and vocab.is_model(value.last, value.module)


def candidate(item: Any) -> bool:
    """One candidate: a model (or model class), or a tuple of one or more with constants (``("ridge", Ridge,
    True)``, ``(Ridge(), {"alpha": [1, 10]})``: a grid as a tuple of constants counts as a constant)."""
    if _model(item):
        return True
    if not isinstance(item, Tup) or not item.items:
        return False
    return any(candidate(i) for i in item.items) and all(candidate(i) or _plain(i) for i in item.items)


def _plain(value: Any) -> bool:
    from faultlib.pyflow.values import Container

    if isinstance(value, Const):
        return True
    if isinstance(value, Tup):
        return all(_plain(i) for i in value.items)
    return isinstance(value, Container) and all(_plain(v) for v in value.items.values())


def model_list(items: tuple[Any, ...] | list[Any]) -> bool:
    """``items`` is a list of candidate models walked item by item (see the module docstring)."""
    return 0 < len(items) <= MAX_CANDIDATES and all(candidate(i) for i in items)


__all__ = ["MAX_CANDIDATES", "candidate", "model_list"]
