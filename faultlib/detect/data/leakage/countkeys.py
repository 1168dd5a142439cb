"""Keys chosen by their counts (rare levels), for the static leakage analysis.

Click-through and other high-cardinality tables are often cleaned by collapsing the rare levels of a column::

    sizes = pd.DataFrame(table.groupby("site").size())
    rare = sizes[sizes[0] == 1].index
    table["site"] = np.where(table["site"].isin(rare), "other", table["site"])

The count per key is a statistic of the rows it runs on (:mod:`.counts`); the keys kept by a mask on those counts
(``sizes[sizes[0] == 1].index``) or by their rank (``s.value_counts()[:20].index``, ``.head(20).index``,
``.nlargest(20).index``; ``value_counts`` sorts by count, pandas API reference) are what that statistic decided: which
levels are rare. Run over rows that include held-out rows, a test row's own occurrences decide whether its level
survives, exactly as a frequency encoding would (issue 17 wave 79: an Avazu notebook replaced levels seen once in
all the rows by "Unknown" before cutting its held-out evening). So the labels of such a selection carry the fit of
the table they are taken from (with no rows of their own), as the labels of a ranked score already do
(``static._attribute_value``).

The plain ``.index`` of a count table (every level, in any order) is a list of the distinct values, like the
categories of a ``LabelEncoder``: no selection, so nothing is added; and ``.index`` of a table with the rows of the
data (``df[df.x > cut].index``: rows, not keys) is left to the row rules (outliers, masks).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.counts import counts_per_key
from faultlib.detect.data.leakage.groupvars import grouped_receiver
from faultlib.detect.data.leakage.samples import groupby_call
from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.walk import walk_once

#: methods that keep the first or last keys of a table sorted by its values (pandas API reference)
_RANKED = frozenset({"head", "tail", "nlargest", "nsmallest"})
#: constructors and methods that keep a per-key table's keys as its labels (``reset_index()`` moves them to a column)
_CONSTRUCTORS = frozenset({"DataFrame", "Series"})
_KEEPING = frozenset({"sort_values", "to_frame"})


def _per_key_table(expr: ast.expr, bindings: dict[str, list[ast.expr]], line: int, depth: int = 0) -> bool:
    """``expr`` is a count per key (``df.groupby(k).size()``, ``s.value_counts()``), maybe wrapped in
    ``pd.DataFrame(...)`` or held in a name bound to one."""
    if depth > 4:
        return False
    if isinstance(expr, ast.Subscript):  # sizes[0]: the count column of a wrapped count
        return _per_key_table(expr.value, bindings, line, depth + 1)
    if isinstance(expr, ast.Name):
        bound = bindings.get(expr.id) or []
        return bool(bound) and all(_per_key_table(b, bindings, line, depth + 1) for b in bound)
    if not isinstance(expr, ast.Call):
        return False
    func = expr.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name in _CONSTRUCTORS:  # pd.DataFrame(counts): the table it is given
        return bool(expr.args) and _per_key_table(expr.args[0], bindings, line, depth + 1)
    if name in _KEEPING and isinstance(func, ast.Attribute):  # counts.sort_values(): the same keys
        return _per_key_table(func.value, bindings, line, depth + 1)
    if not isinstance(func, ast.Attribute):
        return False
    receiver = grouped_receiver(func.value, bindings, line)
    return counts_per_key(name, receiver) and groupby_call(receiver) is not None or name == "value_counts"


def _selection(node: ast.expr) -> ast.expr | None:
    """The table a selection of keys is taken from: ``t`` of ``t[t[0] == 1]``, ``t[:20]``, ``t.head(20)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RANKED:
        return node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.slice, (ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp,
                                                                  ast.Slice)):
        return node.value
    return None


def count_keys(tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> frozenset[int]:
    """Ids of the ``.index`` nodes that take the keys a count per key selected (see the module docstring)."""
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Attribute) and n.attr == "index":
            table = _selection(n.value)
            if table is not None and _per_key_table(table, bindings, n.lineno):
                out.add(id(n))
    return frozenset(out)


class CountKeys:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: the keys a count per key selected keep the
    count's fit (see the module docstring; needs the analyzer's ``_bindings``)."""

    _bindings: dict
    tree: ast.Module
    _count_key_nodes: frozenset[int] | None = None

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        if isinstance(node, ast.Attribute) and node.attr == "index" and id(node) in self._count_key_ids():
            table = maybe_data(self._expr(node.value, frame))
            if table is not None and table.taints:
                return Data(None, table.taints, False)
        return super()._expr(node, frame)  # type: ignore[misc]

    def _count_key_ids(self) -> frozenset[int]:
        if self._count_key_nodes is None:
            self._count_key_nodes = count_keys(self.tree, self._bindings)
        return self._count_key_nodes


__all__ = ["CountKeys", "count_keys"]
