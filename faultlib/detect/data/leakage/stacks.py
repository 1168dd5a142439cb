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


def columns_axis(kwargs: dict[str, Any]) -> bool:
    """``axis=1`` / ``axis='columns'``: the call works along columns, not rows."""
    axis = kwargs.get("axis")
    return isinstance(axis, Const) and axis.value in (1, "columns")


def drops_columns(kwargs: dict[str, Any]) -> bool:
    """``df.drop(columns=...)`` / ``df.drop(cols, axis=1)``: columns go, the rows stay."""
    return "columns" in kwargs or columns_axis(kwargs)


__all__ = ["columns_axis", "drops_columns", "stacked_items"]
