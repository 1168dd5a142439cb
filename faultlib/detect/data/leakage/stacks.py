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


def repeated_rows(name: str, args: list[Any], kwargs: dict[str, Any], draws: list[str | None] | None,
                  datas: list[Any]) -> Any:
    """The rows a row stack repeats -- oversampling written by hand -- or ``None``: the rows of an item chosen again
    from a table the stack holds (``draws``: each listed item's way of choosing, from
    :func:`~faultlib.detect.data.leakage.rowdraws.stacked_draws`; ``datas``: each item's data or ``None``).

    * a selection by the label (``pd.concat([df, df[df['label'] == 1]])``) stacked with the table it selects from:
      its root the same and its path of selections a strict prefix of the item's
      (:func:`~faultlib.detect.data.leakage.values.covers`); the rows that have no label (a test table read from
      its own file) cannot be among them;
    * rows drawn with replacement (``minority.sample(n, replace=True)``) stacked with any rows of the same table
      (``[majority, upsampled]``): the draw itself repeats rows;
    * the same table listed twice beside other rows (``pd.concat([df, few, few])``), or one whole table repeated
      and nothing else (``pd.concat([df, df])``, draws ``WHOLE``: reported only where a row-wise split parts the
      copies, :mod:`~faultlib.detect.data.leakage.copysplits`).

    The parts of a split (``[train, test]``), two masks of one table (``[majority, minority]``) and anything else
    derived from a table (a copy transformed column by column, placeholder rows, a merge's parts) repeat no chosen
    row (:mod:`~faultlib.detect.data.leakage.rowdraws` gives the sources). Only a stack of a literal list given
    alone (no positional ``axis``: ``pd.concat([a, b], 1)`` joins columns side by side) and along the rows."""
    from faultlib.detect.data.leakage.rowdraws import LABEL, REPLACEMENT
    from faultlib.detect.data.leakage.values import RowUnion, covers, parts

    listed = bool(args) and isinstance(args[0], Tup) and len(args) == 1 or not args and any(
        isinstance(kwargs.get(k), Tup) for k in _STACK_KEYWORDS)
    if name not in ("concat", "concatenate", "vstack", "row_stack") or not listed or not _along_rows(kwargs) or \
            draws is None or len(draws) != len(datas):
        return None
    items = list(zip(draws, datas))
    for j, (how, drawn) in enumerate(items):
        if how is None or drawn is None:
            continue
        others = [p for i, (_, d) in enumerate(items) if i != j and d is not None for p in parts(d.rows)]
        chosen = [q for q in parts(drawn.rows) if any(
            p.root == q.root if how == REPLACEMENT else covers(p, q) and (how != LABEL or len(q.steps) > len(p.steps))
            for p in others) and not (how == LABEL and q.root.test)]
        if chosen:
            return drawn.with_(rows=chosen[0] if len(chosen) == 1 else RowUnion(tuple(chosen)))
    return None


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


__all__ = ["columns_axis", "drops_columns", "repeated_rows", "stacked_items"]
