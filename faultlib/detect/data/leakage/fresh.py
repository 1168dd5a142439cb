"""A fresh, empty table filled column by column, for the static leakage analysis.

``feat = pd.DataFrame()`` holds no rows yet; ``feat['a'] = np.tanh(data['x'] * 2)`` gives it the rows of ``data``
and whatever shaped them (a scaler fitted on train and test stacked). Without this, the interpreter read the empty
table as an unknown name becoming a dict (``d = {}; d['train'] = ...``), and the fits that shaped its columns were
lost before the table reached a model or a file. The first column filled from data gives the table its rows; later
columns add their fits (:meth:`~faultlib.detect.data.leakage.static.Analyzer._bind_item`, as for any table).

A NumPy array made to be filled (``lags = np.zeros((n, k))``, an unknown value no data reached yet) is such a
table when a whole column is set (``lags[:, j] = level[j:j + n]``, a lag matrix built one column a pass): it takes
that column's rows and fits. Rows set by an index (``oof[va] = model.predict(...)``) do not make it those rows.

Rows appended to the empty table (``df = df.append(pd.DataFrame(vec.reshape(1, -1)))`` in a loop, pandas < 2) make
it those rows, as a first column does. Only a constructor given no data counts (``pd.DataFrame()``, ``pd.DataFrame(columns=[...])``); a table built from
data (``pd.DataFrame(X)``, ``pd.DataFrame(index=df.index)``) already holds its source's rows; so does one built from an
array the analysis holds as an unknown value (``X = np.load(path)``; ``pd.DataFrame(X, columns=names)`` names the
columns of the same rows: pandas API, ``DataFrame``), so a selector fitted on the frame and applied to ``X`` chose
columns of rows it saw (wave 61).

A table built from a list the analysis does not follow (``X = pd.DataFrame(features, columns=names)``, the list
filled one row per row of ``df`` in an ``iterrows`` loop: composition descriptors of alloys, one row per
measurement) holds rows it cannot name; the first column set on it from a table (``X['grain'] =
imputer.fit_transform(df[['grain']])``) has as many rows as the frame and is the same rows, so the table takes that
column's rows and fits as an empty one does, when that column carries a fit (wave 100: a grain-size imputer fitted
on every alloy before the split was lost in the built feature table); a plain value (``part['clip'] =
test.clip.iloc[i]``, one row's key broadcast) says nothing of the table's rows.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, MaybeData, Root, Rows
from faultlib.pyflow.values import UNKNOWN, Ref

#: keyword arguments of ``pandas.DataFrame`` that give it no rows (pandas API, ``DataFrame``)
_NO_ROWS = frozenset({"columns", "dtype", "copy"})


class FreshTable(MaybeData):
    """``pd.DataFrame()``: a table with no rows yet, named by the variable it is bound to."""


class BuiltTable(MaybeData):
    """``pd.DataFrame(np.random.rand(n, k), columns=cols)``: a table built from values the analysis does not follow
    (dummy data in an ``except FileNotFoundError:`` branch). It is a table: ``t['day'] = ...`` sets a column, it does
    not turn the name into a dict of parts (which, joined with the other branch's table read from a file, would hide
    that table's rows and fits from the rest of the script)."""

    def __init__(self, name: str, line: int):
        super().__init__(name, line)
        self.from_file = True  # the interpreter's mark of "a table, never a dict of parts" ...

    def as_data(self) -> Data:
        if self._data is None:  # ... but its rows were not read from a file
            self._data = Data(Rows(Root(self.name, self.line)))
        return self._data


def _empty_constructor(ref: Ref, args: list[Any], kwargs: dict[str, Any]) -> bool:
    return ref.last == "DataFrame" and ref.module.split(".")[0] in ("pandas", "pd") and not args \
        and set(kwargs) <= _NO_ROWS


class FreshTables:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if _empty_constructor(ref, args, kwargs):
            return FreshTable("DataFrame()", node.lineno)
        indexed = self._indexed_like(ref, args, node, frame)
        if indexed is not None:
            return indexed
        out = super()._library(ref, args, kwargs, node, frame)
        if out is UNKNOWN and ref.last == "DataFrame" and ref.module.split(".")[0] in ("pandas", "pd") and args:
            if type(args[0]) is MaybeData:  # pd.DataFrame(X), X = np.load(...): X's rows, with column names
                return args[0].as_data()
            return BuiltTable("DataFrame(...)", node.lineno)
        return out

    def _indexed_like(self, ref: Ref, args: list[Any], node: ast.Call, frame: Any) -> Data | None:
        """``pd.DataFrame(index=data.index)``: no columns yet, but the rows of ``data`` (pandas API, ``DataFrame``:
        ``index`` labels the rows); columns filled later add their fits as for any table. A table given its data by
        keyword (``pd.DataFrame(data=imputer.transform(df), index=df.index, columns=list(df))``) is built from that
        data, fits and all, as ``pd.DataFrame(values, index=...)`` is (wave 82: a KNN imputer's output passed as
        ``data=`` lost the imputer's fit)."""
        from faultlib.detect.data.leakage.values import maybe_data

        if ref.last != "DataFrame" or ref.module.split(".")[0] not in ("pandas", "pd") or args or any(
                k.arg == "data" for k in node.keywords):
            return None
        index = next((k.value for k in node.keywords if k.arg == "index"), None)
        if not (isinstance(index, ast.Attribute) and index.attr == "index"):
            return None
        source = maybe_data(self._expr(index.value, frame))  # type: ignore[attr-defined]
        return None if source is None or source.rows is None else Data(source.rows, frozenset(), source.test)

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        if name == "append" and still_empty(receiver) and args and maybe_data(args[0]) is not None:
            return maybe_data(args[0])  # df = df.append(row_frame): the empty table becomes the rows appended
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _fill_fresh(self, target: ast.expr, owner: Any, value: Any, frame: Any) -> bool:
        """``feat['a'] = data_expr`` on a still empty table: the table takes that column's rows and fits (the
        Analyzer's ``_bind_item`` asks this first). Returns whether it did."""
        from faultlib.detect.data.leakage.values import maybe_data

        new = maybe_data(value)
        if (still_empty(owner) or _unread_built(owner) and new is not None and bool(new.taints)
                or _unfilled_array(owner) and _whole_column(target)) and isinstance(
                target, ast.Subscript) and isinstance(target.value, ast.Name) and new is not None \
                and new.rows is not None:
            self._store(target.value.id, Data(new.rows, new.taints, new.test), frame)
            return True
        return False


def _unread_built(value: Any) -> bool:
    """A table built from values not followed (:class:`BuiltTable`) that nothing has read as data yet."""
    return isinstance(value, BuiltTable) and not value.used_as_data


def _unfilled_array(value: Any) -> bool:
    """An unknown value no data has reached yet (``lags = np.zeros((n, k))``), not a table read from a file."""
    return isinstance(value, MaybeData) and not isinstance(value, FreshTable) and not value.used_as_data \
        and not value.from_file


def _whole_column(target: ast.expr) -> bool:
    """``m[:, j] = ...``: every row of one column is set (NumPy indexing, a full slice first), as ``df['c'] = ...``
    sets a table's column; ``oof[va] = ...`` / ``m[i, :] = ...`` set rows chosen by an index, which say nothing of
    the array's other rows."""
    if not isinstance(target, ast.Subscript) or not isinstance(target.slice, ast.Tuple) or not target.slice.elts:
        return False
    first = target.slice.elts[0]
    return isinstance(first, ast.Slice) and first.lower is None and first.upper is None and first.step is None


def still_empty(value: Any) -> bool:
    """``value`` is a fresh table no column has filled yet (``feat['a'] = ...`` on it sets a column, it does not
    make a dict)."""
    return isinstance(value, FreshTable) and not value.used_as_data


__all__ = ["BuiltTable", "FreshTable", "FreshTables", "still_empty"]
