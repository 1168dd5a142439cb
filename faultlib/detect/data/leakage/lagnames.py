"""Columns named as lags of the target, for the static leakage analysis's ``shuffled_time_split``.

A pipeline of notebooks builds its lag features in one notebook and splits in the next: the first sorts the rows
of each player by season and round and adds ``points_lag_1`` ... ``points_lag_10`` with ``groupby(...).shift(k)``,
writes the table to a file, and the second reads it, keeps those columns beside the target ``total_points`` and
splits the rows with a shuffled ``train_test_split``. The series is out of sight of the splitting script, but the
script names it: a column called ``<target>_lag_<k>`` (or ``lag_<k>_<target>``, ``prev_<target>``) is, by the
convention of feature engineering for forecasting, the target ``k`` steps earlier (Hyndman & Athanasopoulos,
*Forecasting: Principles and Practice*, 3rd ed., section 7.4, "lagged predictors"). A later training row's lag is
then a scored row's label, as with a ``shift`` in the script itself (:mod:`.timeorder`'s policy).

Recognised (:func:`lagged_target_columns`): a string constant of the program whose name tokens hold a lag word
(``lag``, ``lagged``, ``prev``, ``previous``, ``shifted``) and, besides lag words and numbers, a word of a target
column's name (``points`` of ``total_points``; generic words such as ``total`` or ``count`` do not count), and no
word of its own beyond the target's, a horizon or a statistic (``previous_bookings_not_canceled`` beside the target
``is_canceled`` is a history column a dataset ships, the count of a customer's earlier bookings, not the target's
earlier value), unless
it only stands where columns are taken away (``drop(columns=[...])``, ``del df[...]``, ``c not in (...)``: the lags
dropped from the features leak nothing). The columns are shown as the rows' time-ordered features when the script
computes none itself and the split reads them (its call names a lag column, or a name assigned from one: a split of
other columns of the same rows stays silent); a split that keeps time order, or folds of whole series, stays silent
as before.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

__all__ = ["lagged_target_columns"]

#: words of a column name that make it an earlier value of another column
_LAG_WORDS = frozenset({"lag", "lagged", "prev", "previous", "shifted"})
#: words a lag's name may add to the target's: its horizon and a statistic of the earlier values
#: (``sales_lag_7_days``, ``points_prev_3_rolling_mean``)
_LAG_DETAIL = frozenset({"day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours", "step",
                         "steps", "round", "rounds", "season", "seasons", "rolling", "ewm", "diff", "std", "min",
                         "max", "median"})
#: words of a target's name too generic to tie a column to it
_GENERIC = frozenset({"total", "count", "num", "number", "value", "values", "is", "has", "target", "label", "y",
                      "class", "sum", "mean", "avg", "new", "final", "all"})


def _words(name: str) -> set[str]:
    return {t.lower() for t in vocab.name_tokens(name) if len(t) > 1 and not t.isdigit()}


def _removes_columns(node: ast.AST) -> bool:
    """``df.drop(columns=[...])``, ``del df['c']``, ``c not in ('a', 'b')``: the columns named there are taken away
    from the features (pandas API, ``DataFrame.drop``), not kept."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "drop" or \
        isinstance(node, ast.Delete) or isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.NotIn, ast.NotEq)) for op in node.ops)


def _lag_constants(tree: ast.AST, targets: Iterable[str]) -> list[ast.Constant]:
    """The string constants of ``tree`` that name a lag of a target column (see the module docstring)."""
    target_words = set().union(*(_words(t) for t in targets if isinstance(t, str))) - _GENERIC
    if not target_words:
        return []
    out, removed = [], set()
    for node in walk_once(tree):
        if _removes_columns(node):
            removed |= {id(c) for c in ast.walk(node) if isinstance(c, ast.Constant)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 60 and \
                id(node) not in removed:
            words = _words(node.value)
            rest = words - _LAG_WORDS
            if words & _LAG_WORDS and rest & target_words and rest <= target_words | _GENERIC | _LAG_DETAIL:
                out.append(node)
    return out


def _reads_lags(node: ast.AST, constants: set[int], holders: set[str]) -> bool:
    return any(id(n) in constants or isinstance(n, ast.Name) and n.id in holders for n in ast.walk(node))


def lagged_target_columns(tree: ast.AST, targets: Iterable[str]) -> tuple[list[str], frozenset[int]]:
    """The lag columns of a target ``tree`` names (see the module docstring), sorted, and the lines of the calls and
    assignments that read them: one naming such a column, or a name assigned (in line order, from earlier names)
    from one (``features = ['points_lag_1', ...]``; ``df = df[features]``; ``X = df.drop(...)``). A split of other
    columns of the same rows (``train_test_split(df[['minutes', 'goals']], ...)``) reads none of them."""
    found = _lag_constants(tree, targets)
    if not found:
        return [], frozenset()
    constants = {id(c) for c in found}
    sites = [n for n in walk_once(tree) if isinstance(n, (ast.Assign, ast.Call))]
    holders: set[str] = set()
    for _ in range(2):  # a second pass for the names a loop rebinds from later ones
        for a in sorted((n for n in sites if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
            if _reads_lags(a.value, constants, holders):
                holders |= {n.id for t in a.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    lines = {line for n in sites if _reads_lags(n, constants, holders)
             for line in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    return sorted({c.value for c in found}), frozenset(lines)
