"""Statistics kept in a Python list (or a dict of lists) and read back later, for the static leakage analysis.

A loop over columns often computes one statistic per column, keeps it in a list, and applies the list's latest
item, or the whole list, later::

    rare = []
    for c in cat_cols:
        counts = both[c].value_counts()                  # both = train and test stacked
        rare.append(counts[counts < 40].index.values)     # the levels rare in every row
        both.loc[both[c].isin(rare[-1]), c] = 0

    fences = {"low": [], "high": []}
    for c in num_cols:
        fences["low"].append(df[c].quantile(0.01))
        ...

The list holds what its items hold: a statistic of the rows it was computed on, keys chosen by counts, a fence.
Without this an appended statistic was dropped (the list stayed an empty literal), so ``rare[-1]`` was an unknown
value and the relabelling it drives looked like a constant (issue 17 wave 87: a Kaggle playground project's rare
categories, counted over train and test stacked). So appending (or extending with) a value that holds only a
statistic -- no rows, some fit (:class:`~faultlib.detect.data.leakage.values.Data` with ``rows`` ``None``) -- to
a list that holds nothing else yet makes the list a vector of statistics, as ``df.mean()`` is a series of them:
any item, slice or iteration of it carries every appended fit (``for ct in tables:`` over contingency tables of
the target appended one per column, each turned into weights of evidence: wave 88, a credit scorecard). A list held in a dict under a constant key
(``fences["low"]``) is updated in the dict.

A list that already holds other things (column names, row blocks: :mod:`.frames`, :mod:`.blocks`) keeps its own
rules, as does a column name a fit chose (:func:`~faultlib.detect.data.leakage.classstats.chooses`). Scores and
other numbers that carry no fit append nothing.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.values import Data
from faultlib.pyflow.values import UNKNOWN, Container, Tup

__all__ = ["StatisticLists", "statistic"]

_GROWS = frozenset({"append", "extend"})


def statistic(value: Any) -> bool:
    """``value`` holds only a statistic: no rows of its own, some fit, none of them a choice of columns."""
    return isinstance(value, Data) and value.rows is None and bool(value.taints) and not any(
        chooses(f) for f in value.taints)


def _named_lists(expr: ast.expr) -> bool:
    """``tables`` or ``num_tabs + cat_tabs``: names of lists, or their concatenation."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _named_lists(expr.left) and _named_lists(expr.right)
    return isinstance(expr, ast.Name)


def _only_statistics(held: Any) -> bool:
    """A list that holds nothing yet, or only statistics."""
    if isinstance(held, Tup):
        return all(statistic(i) for i in held.items)
    return statistic(held)


class StatisticLists:
    """``stats.append(s)`` / ``stats[key].append(s)``: the list becomes a vector of statistics (see the module
    docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if name in _GROWS and len(args) == 1 and statistic(args[0]) and _only_statistics(receiver) and \
                self._keep_statistics(node.func.value, receiver, args[0], frame):
            return UNKNOWN
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _statistic_items(self, source: Any, node: ast.For, frame: Any) -> bool:
        """``for table in tables:`` over a name holding only statistics (a list built by appending them,
        ``tables.append(pd.crosstab(...))``, or such lists joined by ``+``): each item is one of them, so the
        loop variable carries every appended fit (the body runs once, as for any loop). Returns whether the loop was
        run so."""
        if not (statistic(source) and isinstance(node.target, ast.Name) and _named_lists(node.iter)):
            return False
        self._bind(node.target, source, frame, node.lineno)  # type: ignore[attr-defined]
        self._block(node.body, frame)  # type: ignore[attr-defined]
        return True

    def _keep_statistics(self, place: ast.expr, held: Any, added: Data, frame: Any) -> bool:
        """Rebind the list at ``place`` (a name, or a name's constant key) to the statistics it now holds."""
        taints = added.taints.union(*(i.taints for i in (held.items if isinstance(held, Tup) else [held])))
        kept = Data(None, taints, False)
        if isinstance(place, ast.Name):
            self._store(place.id, kept, frame)  # type: ignore[attr-defined]
            return True
        if isinstance(place, ast.Subscript) and isinstance(place.value, ast.Name) and isinstance(
                place.slice, ast.Constant):
            owner = self._lookup(place.value.id, frame)  # type: ignore[attr-defined]
            if isinstance(owner, Container) and owner.items.get(place.slice.value) is held:
                owner.items[place.slice.value] = kept
                return True
        return False
