"""The first, last or a quantile of a date column: a cut point or an origin in time, not a fit, for the static
leakage analysis.

A forecasting script splits its rows in time with a statistic of the date column itself
(``cutoff = df['day'].quantile(0.8)``, then ``train = df[df['day'] <= cutoff]``) and counts days from the first one
(``origin = df['day'].min()``, then ``(df['day'] - origin).dt.days``). Read as hand-written statistics of every
row, both look like fits before the split. They are not:

* a quantile (or the first or last date) that rows are then compared with *is* the split: the held-out rows are
  the dates past it, by definition, as ``TimeSeriesSplit`` (scikit-learn user guide, "Cross-validation of time
  series data") cuts at a position of the ordered rows; no value learnt from them enters a feature;
* the first or last date used as an origin shifts a derived count by one constant for every row (pandas user
  guide, "Time deltas": ``Timestamp - Timestamp`` is a ``Timedelta``); a constant offset changes no split, no tree,
  and only the intercept of a linear model. In a chronological split the first date is a training row's anyway.

A column counts as a date column when the script shows it holds dates: it is assigned ``pd.to_datetime(...)`` (or
``.astype('datetime64[...]')``), it is named in ``read_csv(..., parse_dates=[...])``, or it is read through the
``.dt`` accessor, directly or after subtracting something from it (``(df['day'] - origin).dt.days``). Recognised
reductions: ``min``, ``max`` and ``quantile`` called on ``frame['col']`` or ``frame.col`` of such a column.

Not covered, and still fits: a mean or a standard deviation of dates (a scale, not a point), a statistic of a
numeric column that merely counts days (``days_employed``: no ``.dt`` and no date conversion in the script), and a
quantile of any other column used as an outlier fence (:mod:`~faultlib.detect.data.leakage.outliers`).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.bands import column_of as _column
from faultlib.pyflow.walk import walk_once

#: reductions that give one point of the time axis
_POINTS = frozenset({"min", "max", "quantile"})

#: calls whose value is a column of dates
_DATE_MAKERS = frozenset({"to_datetime", "DatetimeIndex"})


def _makes_dates(value: ast.expr) -> bool:
    """``pd.to_datetime(...)`` or ``x.astype('datetime64[ns]')``."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in _DATE_MAKERS:
        return True
    return name == "astype" and bool(value.args) and isinstance(value.args[0], ast.Constant) and \
        str(value.args[0].value).startswith("datetime64")


def date_columns(tree: ast.Module) -> frozenset[str]:
    """Names of the columns ``tree`` shows to hold dates (see the module docstring)."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and _makes_dates(node.value):
            out.update(c for c in map(_column, node.targets) if c is not None)
        elif isinstance(node, ast.Attribute) and node.attr == "dt":
            inner = node.value.left if isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Sub) \
                else node.value
            column = _column(inner)
            if column is not None:
                out.add(column)
        elif isinstance(node, ast.keyword) and node.arg == "parse_dates" and isinstance(node.value,
                                                                                     (ast.List, ast.Tuple)):
            out.update(e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return frozenset(out)


def date_points(tree: ast.Module) -> frozenset[int]:
    """``id`` of each ``min``/``max``/``quantile`` call on a date column of ``tree``: a cut point or an origin,
    no fit (see the module docstring)."""
    dates = date_columns(tree)
    if not dates:
        return frozenset()
    return frozenset(id(n) for n in walk_once(tree)
                     if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _POINTS
                     and _column(n.func.value) in dates)


__all__ = ["date_columns", "date_points"]
