"""A period written as a string key, ``X['2018']``, on rows indexed by dates: a slice in time, for the static
leakage analysis.

pandas selects the rows of a period by a partial date string on a ``DatetimeIndex`` ("Partial string indexing",
pandas user guide, "Time series / date functionality"): ``s['2018']`` is every row of 2018, ``s['2018-03']`` those
of March 2018, as ``s['2018':'2018']`` would be. Read alone, the key looks like a column name; a year-named column
of a wide table (``gdp['2018']``) is one, so the key is read as rows only when the script itself shows the index is
dates: the same name is also sliced with a date string as a bound (``X[:'2017']`` beside ``X['2018']``, wave 66: a
trading book's LSTM trained on every year up to 2017 and tested on 2018, after scaling the whole series).

:func:`period_keys` gives the ``id`` of each such key node; the analysis then takes the subscript as the slice
``'2018':'2018'`` of the rows.
"""

from __future__ import annotations

import ast
import re

from faultlib.pyflow.walk import walk_once

#: ``'2018'``, ``'2018-03'``, ``'2018-03-31'``, ``'2018/03'``
_PERIOD = re.compile(r"^\d{4}([-/]\d{1,2}([-/]\d{1,2})?)?$")


def _period(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(_PERIOD.match(node.value))


def _base(node: ast.Subscript) -> str:
    value = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "loc" else node.value
    return ast.unparse(value)


def period_keys(tree: ast.AST) -> frozenset[int]:
    """The string keys ``X['2018']`` (also ``X.loc['2018']``) of names the module also slices with a date-string
    bound (``X[:'2017']``), by ``id`` of the key node."""
    subs = [n for n in walk_once(tree) if isinstance(n, ast.Subscript)]
    dated = {_base(n) for n in subs if isinstance(n.slice, ast.Slice) and (
        _period(n.slice.lower) or _period(n.slice.upper))}
    return frozenset(id(n.slice) for n in subs if _period(n.slice) and _base(n) in dated)


__all__ = ["period_keys"]
