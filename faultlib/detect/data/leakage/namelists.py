"""A list of column names is not a set of rows, for the static leakage analysis.

``cat_cols = df.select_dtypes('object').columns.tolist()`` holds the names of some columns. Printing a few of them
(``cat_cols[:10]``) slices that list of names; reading the slice as a row selection would make the list *data*
for the rest of the analysis, and ``df[cat_cols]`` would then read as rows chosen by it (a subset of ``df``), not
as ``df``'s columns: a fit on it would no longer cover the rows a later cross-validation scores.

A value the analysis knows nothing of yet (an opaque value not yet used as data) that the module binds from a
frame's ``.columns`` (:func:`.params.column_names`: through assignments, loops and helper parameters) is a list of
names: subscripting it gives names, not rows, and leaves it untouched.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import UNKNOWN


class ColumnNameLists:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_column_names``, ``_expr`` and
    ``_stacked_subscript``)."""

    def _special_subscript(self, base: Any, index_node: ast.expr, frame: Any) -> Any:
        """A subscript with a meaning of its own: of a column-name list (names, see the module docstring), else
        :meth:`~.embeddings.EmbeddingSemantics._stacked_subscript`; ``None``: an ordinary one."""
        if isinstance(base, MaybeData) and not base.used_as_data and base.name in self._column_names:
            self._expr(index_node, frame)  # what the index reads is still read
            return UNKNOWN
        return self._stacked_subscript(base, index_node, frame)


__all__ = ["ColumnNameLists"]
