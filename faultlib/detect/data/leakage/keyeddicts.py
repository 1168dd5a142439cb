"""Tables kept in a dict under a key the analysis cannot read, for the static leakage analysis.

A loop that prepares one table per symbol, store or user keeps each in a dict under the loop's key::

    dfs = {}
    for sym in rets.columns:
        df, cols = add_lags(rets, sym, lags)
        df[cols] = (df[cols] - df[cols].mean()) / df[cols].std()   # over every row of the series
        dfs[sym] = df
    ...
    for sym in rets.columns:
        df = dfs[sym]
        train, test = df.iloc[:split], df.iloc[split:]              # the time cut comes after

(the out-of-sample cells of a finance textbook's notebook, wave 60). The key is a loop variable, not a constant, so
the interpreter's dict (:class:`~faultlib.pyflow.values.Container`, items by constant key) dropped the table, and the
later ``dfs[sym]`` read nothing: the standardisation over all rows never met the cut.

Here a table stored under a key that is not a constant is kept in one shared slot beside the dict's items
(:attr:`~faultlib.pyflow.values.Container.under_unread_key`), joined
with the other tables stored that way (every key's table: the analysis does not tell the loop's passes apart, as it
joins the passes of any loop); a read under a key that is not a constant, or under a constant no item was stored
under, gives that slot. Only such a read sees the slot: iterating the dict or concatenating it (``pd.concat(out)``
of per-dataset result tables) reads its items as before. Dicts of estimators or of anything other than tables
(``models[name] = clf``) are left as they were.

A dict of columns stored under computed names and made a table, ``pd.DataFrame(extra)`` (or
``pd.DataFrame.from_dict(extra)``) after ``extra[f"{col}_freq"] = df[col].map(df[col].value_counts())`` in a loop over
columns, is those columns: pandas builds one column per item of the dict (pandas API, ``DataFrame``: "data: dict can
contain Series, arrays, constants"), so the table holds the rows and fits of the slot's columns (wave 92: counts of
every training row, collected by a Kaggle helper into a dict and concatenated beside the table before the CV).

A dict written out with constant keys and read under a computed one (``{"kmeans": a, "dbscan": b}[best]``, the
table of the clustering a silhouette score chose) gives any of its tables: their join (wave 61, a Kedro node
choosing the best clustering of a PCA table before the split node).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import maybe_data
from faultlib.pyflow.values import UNKNOWN, Const, Container, Ref

#: pandas constructors that make one column of each item of a dict
_TABLE_OF_COLUMNS = frozenset({"DataFrame", "from_dict"})


class LoopKeyedDicts:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _store_keyed(self, target: ast.expr, owner: Any, value: Any) -> bool:
        """``dfs[sym] = df`` with ``dfs`` a dict and ``sym`` no constant: the table joins the shared slot (the
        Analyzer's ``_bind_item`` asks this first). Returns whether it did."""
        table = maybe_data(value)
        if not (isinstance(owner, Container) and isinstance(target, ast.Subscript) and table is not None
                and table.rows is not None):
            return False
        held = owner.under_unread_key
        owner.under_unread_key = value if held is None else self._join(held, value)  # type: ignore[attr-defined]
        return True

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        """``pd.DataFrame(d)`` of a dict holding columns under computed keys: the table of those columns."""
        out = super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]
        source = args[0] if args else kwargs.get("data")
        if ref.last not in _TABLE_OF_COLUMNS or ref.module.split(".")[0] not in ("pandas", "pd") or not isinstance(
                source, Container) or source.under_unread_key is None:
            return out
        held = source.under_unread_key
        built = maybe_data(out)
        if out is UNKNOWN or built is None or not built.taints:
            return held  # the columns' rows and fits (a table built from nothing else)
        return self._join(out, held)  # type: ignore[attr-defined]

    def _subscript(self, base: Any, index_node: ast.expr, frame: Any, line: int) -> Any:
        if not isinstance(base, Container):
            return super()._subscript(base, index_node, frame, line)  # type: ignore[misc]
        held = base.under_unread_key
        tables = held is None and base.items and all(
            (d := maybe_data(v)) is not None and d.rows is not None for v in base.items.values())
        if held is None and not tables:
            return super()._subscript(base, index_node, frame, line)  # type: ignore[misc]
        key = self._expr(index_node, frame)  # type: ignore[attr-defined]
        if held is not None and (not isinstance(key, Const) or key.value not in base.items):
            return held
        if held is None and not isinstance(key, Const):
            # {"kmeans": a, "dbscan": b}[best]: the table a computed key picks is any of them (picked by a score)
            values = list(base.items.values())
            joined = values[0]
            for t in values[1:]:
                joined = self._join(joined, t)  # type: ignore[attr-defined]
            return joined
        # a constant key: the item, as the interpreter gives it; the key is handed on as its value, so that an
        # expression (a call the analysis follows) is not evaluated a second time
        return super()._subscript(base, ast.copy_location(ast.Constant(key.value), index_node), frame,  # type: ignore[misc]
                                  line)


__all__ = ["LoopKeyedDicts"]
