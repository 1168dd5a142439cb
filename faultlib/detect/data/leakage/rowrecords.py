"""Rows turned into one record (a dict) per row keep their rows.

``df.T.to_dict().values()`` (pandas: the transposed frame's ``to_dict()`` maps each original row label to that row's
``{column: value}``) and ``df.to_dict('records')`` give one dict per row of ``df``, in order; a
``DictVectorizer`` fitted on them is fitted on those rows. The data value of ``d.values`` (see
:data:`~faultlib.detect.data.leakage.vocab.DATA_ATTRIBUTES`) is then *called* (``d.values()``, a dict's view): its
rows are still the records' rows, where a call of an unknown value would otherwise give nothing.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data

#: views of a dict of per-row records that keep one item per row (Python ``dict.values``, ``dict.keys``)
_VIEWS = frozenset({"values", "keys"})


class RowRecords:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: ``records.values()`` keeps the rows."""

    def _call_value(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        if isinstance(func, Data) and func.rows is not None and not args and not kwargs and isinstance(
                node.func, ast.Attribute) and node.func.attr in _VIEWS:
            return func
        return super()._call_value(func, args, kwargs, node)  # type: ignore[misc]


__all__ = ["RowRecords"]
