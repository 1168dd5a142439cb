"""Contingency tables written with ``pd.crosstab``: counts of the rows given, per pair of keys.

``pandas.crosstab(index, columns)`` "computes a simple cross tabulation of two (or more) factors. By default computes
a frequency table of the factors unless an array of values and an aggregation function are passed" (pandas API
reference, ``pandas.crosstab``). It is the function form of ``df.pivot_table(index=..., columns=..., aggfunc=...)``,
which the analysis already reads as a statistic per group (:mod:`.design`): the table counts (or averages) every
row of the Series it is given. Read back row by row (``np.argmax(table.loc[key])``: the most frequent level per key,
an imputation by the group's mode), it carries those rows' statistics into every row it fills, the test rows'
included when the Series come from a stack of train and test rows.

Issue 17, stop 48 (wave 69): a healthcare notebook replaced each patient's smoking status by the most frequent
status of its gender and age decade, counted with ``pd.crosstab`` over the train+test concatenation, and trained
its searched models on that column.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, as_data, parts
from faultlib.pyflow.values import Tup

_PANDAS = frozenset({"pandas", "pd"})


def crosstab_rows(name: str, top: str, args: list[Any], kwargs: dict[str, Any]) -> Data | None:
    """The rows ``pd.crosstab(index, columns, values=...)`` counts: the first table-derived Series among its keys and
    values (a list of keys, ``[df.gender, df.age]``, included), else ``None`` (not a crosstab, or of no known rows).

    Args:
        name: the called function's last name (``crosstab``).
        top: the first part of its module (``pandas``, or ``pd`` when the import is unresolved).
        args: the evaluated positional arguments.
        kwargs: the evaluated keyword arguments.
    """
    if name != "crosstab" or top not in _PANDAS:
        return None
    keys = [*args[:3], *(kwargs.get(k) for k in ("index", "columns", "values"))]
    for key in keys:
        for item in key.items if isinstance(key, Tup) else (key,):
            data = as_data(item)
            if data is not None and parts(data.rows):
                return data
    return None


__all__ = ["crosstab_rows"]
