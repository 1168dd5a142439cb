"""Which values a pandas/NumPy call joins or drops, read from its arguments, for the static leakage analysis.

* the **tables a stack lists** may come by position or by keyword: ``pd.concat([train, test])``,
  ``pd.concat(objs=[train, test])`` (pandas names the parameter ``objs``), ``np.vstack(tup=(a, b))``,
  ``np.concatenate(arrays=...)`` (NumPy "Joining arrays"); ``np.append(a, b)`` lists them as arguments;
* ``axis=1`` / ``axis='columns'`` works along columns (``concat`` joins columns side by side, ``drop`` removes
  columns), not rows.

Plain functions of the abstract arguments, used by :mod:`faultlib.detect.data.leakage.semantics`.
"""

from __future__ import annotations

from typing import Any

from faultlib.pyflow.values import Const, Tup

#: keywords naming the sequence a stacking call joins (pandas ``concat(objs)``, NumPy ``vstack(tup)``, ``concatenate``)
_STACK_KEYWORDS = ("objs", "tup", "arrays")


def stacked_items(args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """The values a row stack joins: the items of its first argument when that is a list or tuple literal
    (given by position or by keyword, ``pd.concat(objs=[a, b])``), else the positional arguments
    (``np.append(a, b)``)."""
    first = args[0] if args else next((kwargs[k] for k in _STACK_KEYWORDS if k in kwargs), None)
    return list(first.items) if isinstance(first, Tup) else list(args)


def repeats_rows(name: str, args: list[Any], kwargs: dict[str, Any], datas: list[Any]) -> bool:
    """A row stack that lists a table together with a selection of that same table's rows (or the table twice):
    ``pd.concat([df, df[df['label'] == 1]])`` repeats the minority rows -- oversampling written by hand, the same as
    ``resample(minority, replace=True)``: done before a split, copies of one row land in train and test
    (imbalanced-learn user guide, "Over-sampling": resample the training set only). Two tables share rows when they
    come from the same root and one's path of selections is a strict prefix of the other's
    (:func:`~faultlib.detect.data.leakage.values.covers`: the second is a selection of the first's rows), or when
    the same table is listed twice; the parts of a split (``[train, test]``), two different masks of one table
    (``[majority_down, minority]``) and a table beside a copy transformed column by column (``[games,
    games.rename(columns=swap)]``: every game in both team orders, no row chosen) do not. Only a stack of a literal
    list given alone (no positional ``axis``, ``pd.concat([a, b], 1)`` joins columns side by side)."""
    from faultlib.detect.data.leakage.values import covers, parts

    listed = bool(args) and isinstance(args[0], Tup) and len(args) == 1 or not args and any(
        isinstance(kwargs.get(k), Tup) for k in _STACK_KEYWORDS)
    if name not in ("concat", "concatenate", "vstack", "row_stack") or not listed or not _along_rows(kwargs):
        return False
    tables = [(i, p) for i, d in enumerate(datas) for p in parts(d.rows)]
    return any(i != j and covers(p, q) and (len(q.steps) > len(p.steps) or datas[i] is datas[j])
               for i, p in tables for j, q in tables)


def _along_rows(kwargs: dict[str, Any]) -> bool:
    """The stack adds rows: no ``axis``, or ``axis=0``/``'index'`` (``np.concatenate(..., axis=2)`` joins an image's
    channels, ``axis=-1`` one sample's feature blocks: no row is repeated)."""
    axis = kwargs.get("axis")
    return axis is None or not isinstance(axis, Const) or axis.value in (0, "index", "rows")


def columns_axis(kwargs: dict[str, Any]) -> bool:
    """``axis=1`` / ``axis='columns'``: the call works along columns, not rows."""
    axis = kwargs.get("axis")
    return isinstance(axis, Const) and axis.value in (1, "columns")


def drops_columns(kwargs: dict[str, Any]) -> bool:
    """``df.drop(columns=...)`` / ``df.drop(cols, axis=1)``: columns go, the rows stay."""
    return "columns" in kwargs or columns_axis(kwargs)


__all__ = ["columns_axis", "drops_columns", "repeats_rows", "stacked_items"]
