"""``for name, column in table.items()``: a table's columns with their names, for the static leakage analysis.

pandas' ``DataFrame.items()`` (``iteritems()`` before pandas 2.0) iterates over "(column name, Series) pairs"
(pandas API reference, ``DataFrame.items``): each column holds the table's rows, and with them whatever was fitted
on them. A loop that rebuilds a frame column by column from those pairs (``out = pd.DataFrame(index=X.index)``;
``for col, col_data in X.items(): out = out.join(pd.get_dummies(col_data))``) hands on the table's rows and fits;
the loop target was unknown before, so a scaler fitted on every row before such a rebuild, then a split, went
silent (wave 76: a Bundesliga notebook scales cumulative points with ``scale()`` over five seasons, one-hot
encodes column by column through ``iteritems()``, then splits).

The loop runs its body once with the name unknown and the column standing for the whole table (its rows and
fits); a loop over the items of a dictionary or of anything but a table is left to the interpreter.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.values import UNKNOWN, Tup

#: the methods that yield a table's (column name, column) pairs
_ITEMS = frozenset({"items", "iteritems"})


def _column_pairs(node: ast.For | ast.AsyncFor) -> ast.expr | None:
    """The table expression of ``for a, b in <table>.items()``; ``None`` for any other loop."""
    it, target = node.iter, node.target
    if not (isinstance(it, ast.Call) and not it.args and not it.keywords and isinstance(it.func, ast.Attribute)
            and it.func.attr in _ITEMS):
        return None
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name)
                                                                             for e in target.elts)):
        return None
    return it.func.value


class ColumnItems:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_expr``, ``_bind``, ``_block``)."""

    def _column_items(self, node: ast.For | ast.AsyncFor, frame: Any) -> bool:
        """Run ``node`` once with its column bound to the table when it iterates a table's items; ``False``
        otherwise (nothing run)."""
        table_node = _column_pairs(node)
        if table_node is None:
            return False
        table = maybe_data(self._expr(table_node, frame))  # type: ignore[attr-defined]
        if not isinstance(table, Data) or table.rows is None:
            return False
        self._bind(node.target, Tup((UNKNOWN, table)), frame, node.lineno)  # type: ignore[attr-defined]
        self._block(node.body, frame)  # type: ignore[attr-defined]
        return True


__all__ = ["ColumnItems"]
