"""Statistics per period that reach the rows only as lag features, for the static leakage analysis.

A forecasting script (monthly sales: the test rows are the last month) often encodes a group mean per period and
keeps only its lags:

    group = matrix.groupby(['date_block_num', 'shop_id']).agg({'item_cnt_month': ['mean']})
    group.columns = ['date_shop_avg']
    matrix = pd.merge(matrix, group, on=['date_block_num', 'shop_id'], how='left')
    matrix = lag_feature(matrix, [1, 2, 3], 'date_shop_avg')   # a helper that re-keys copies one period later
    matrix.drop(['date_shop_avg'], axis=1, inplace=True)

A row of month ``m`` then carries the means of months ``m-1``, ``m-2``, ...: earlier periods only, as a
``shift`` would give, so the held-out last month's values reach no training row and its own rows see only the
past. Recognised (all of it, else the statistic stays a fit): the ``groupby`` keys name a period (a date-like
column, :data:`faultlib.detect.data.leakage.vocab.DATE_COLUMN`), the result's column is named by
``group.columns = [...]``, that name is passed (alone or in a list) to a function of the script whose body moves a
date-like column by an offset (``shifted['date_block_num'] += i``, ``shifted.date_block_num =
shifted.date_block_num + i``) or calls ``shift``, and the unlagged column is dropped afterwards.

The same lag written inline (:func:`rekeyed_groupbys`): the per-period table itself is moved one period on before
it is merged into the rows::

    price = sales.groupby(['week', 'item'])['price'].mean()
    rank = sales.groupby('week')['item'].value_counts().groupby('week').rank()
    popular = pd.merge(rank, price, on=['week', 'item']).reset_index()
    popular.week += 1                     # last week's ranks and prices, keyed by this week
    rows = rows.merge(popular, on=['week', 'item'], how='left')

Recognised: a ``groupby`` keyed by a period column (a date-like column, or one named for a week, month, day, quarter
or period), the table it makes bound to a name (and any name assigned from it in the same function: a merge, a
``reset_index``), and that name's period column then moved forward by a positive constant (``t.week += 1``,
``t['week'] = t['week'] + 1``). Issue 17, wave 89: an H&M ranker's weekly bestseller ranks and prices of the training
weeks, each keyed by the week after, were reported as fits before the held-out last week.
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.callerpaths import _own_nodes
from faultlib.pyflow.walk import walk_once


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _moves_period(node: ast.AST) -> bool:
    """``x['date_block_num'] += i`` / ``x.date_block_num = x.date_block_num + i``: a date-like column moved by an
    offset."""
    if isinstance(node, ast.AugAssign):
        target = node.target
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp):
        target = node.targets[0]
    else:
        return False
    names = _strings(target.slice) if isinstance(target, ast.Subscript) else {target.attr} if isinstance(
        target, ast.Attribute) else set()
    return any(vocab.DATE_COLUMN.search(s) for s in names)


def _lag_functions(tree: ast.Module) -> set[str]:
    """Functions of the script that shift rows in time: a date-like column moved by an offset (``x['date_block_num']
    += i``, ``x.date_block_num = x.date_block_num + i``) or a ``.shift(...)`` call."""
    out = set()
    for fn in walk_once(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for n in ast.walk(fn):
            moved = _moves_period(n)
            shifted = isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "shift"
            if moved or shifted:
                out.add(fn.name)
                break
    return out


#: a column naming a period: date-like (:data:`~.vocab.DATE_COLUMN`) or a week, month, day, quarter or period number
PERIOD_COLUMN = re.compile(r"(^|_)(week|month|day|quarter|period)s?(_?(num|no|nr|idx|index|id))?$", re.IGNORECASE)


def _period(name: str) -> bool:
    return bool(vocab.DATE_COLUMN.search(name) or PERIOD_COLUMN.search(name))


def _moved_forward(node: ast.AST) -> tuple[str, str] | None:
    """``t.week += 1``, ``t['week'] += 1``, ``t.week = t.week + 1``: ``(table, period column)`` moved on by a
    positive constant; ``None`` otherwise."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
        target, step = node.target, node.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp) and \
            isinstance(node.value.op, ast.Add) and ast.dump(node.value.left) == ast.dump(node.targets[0]):
        target, step = node.targets[0], node.value.right
    else:
        return None
    if not (isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value > 0):
        return None
    column = target.attr if isinstance(target, ast.Attribute) else target.slice.value if isinstance(
        target, ast.Subscript) and isinstance(target.slice, ast.Constant) else None
    table = target.value.id if isinstance(target, (ast.Attribute, ast.Subscript)) and isinstance(
        target.value, ast.Name) else None
    return (table, column) if isinstance(table, str) and isinstance(column, str) and _period(column) else None


def rekeyed_groupbys(tree: ast.Module) -> frozenset[int]:
    """Ids of the period-keyed ``groupby`` calls whose table is moved one period on (see the module docstring)."""
    out: set[int] = set()
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        statements = sorted((n for n in _own_nodes(scope.body) if isinstance(n, (ast.Assign, ast.AugAssign))),
                            key=lambda n: (n.lineno, n.col_offset))
        tables: dict[str, dict[int, set[str]]] = {}  # name -> {id(groupby): its key strings}
        for stmt in statements:
            moved = _moved_forward(stmt)
            if moved is not None:
                out.update(i for i, keys in tables.get(moved[0], {}).items() if moved[1] in keys)
                continue
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
                continue
            found = {id(c): _strings(c.args[0]) for c in ast.walk(stmt.value) if isinstance(c, ast.Call) and
                     isinstance(c.func, ast.Attribute) and c.func.attr == "groupby" and c.args and any(
                         _period(k) for k in _strings(c.args[0]))}
            for n in ast.walk(stmt.value):
                if isinstance(n, ast.Name) and n.id in tables:
                    found.update(tables[n.id])
            if found:
                tables[stmt.targets[0].id] = found
    return frozenset(out)


def lagged_groupbys(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``groupby`` calls whose statistic reaches the rows only as lags (see the module docstring)."""
    rekeyed = rekeyed_groupbys(tree)
    lags = _lag_functions(tree)
    if not lags:
        return rekeyed
    statements = sorted((n for n in walk_once(tree) if isinstance(n, (ast.Assign, ast.Expr))),
                        key=lambda n: (n.lineno, n.col_offset))
    out: set[int] = set()
    for i, stmt in enumerate(statements):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        grouped = [c for c in ast.walk(stmt.value) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                   and c.func.attr == "groupby" and c.args and any(
                       vocab.DATE_COLUMN.search(s) for s in _strings(c.args[0]))]
        if not grouped:
            continue
        name, column = stmt.targets[0].id, None
        for later in statements[i + 1:i + 4]:  # group.columns = ['date_shop_avg'] right after
            target = later.targets[0] if isinstance(later, ast.Assign) and len(later.targets) == 1 else None
            if isinstance(target, ast.Attribute) and target.attr == "columns" and isinstance(
                    target.value, ast.Name) and target.value.id == name and isinstance(later.value, ast.List) \
                    and len(later.value.elts) == 1 and isinstance(later.value.elts[0], ast.Constant):
                column = later.value.elts[0].value
                break
        if not isinstance(column, str):
            continue
        rest = statements[i + 1:]
        lagged = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in lags and any(
            column in _strings(a) for a in c.args if isinstance(a, (ast.Constant, ast.List, ast.Tuple)))
            for s in rest for c in ast.walk(s))  # lag_feature(m, [1, 2], 'avg') or (m, [1, 2], ['avg'])
        dropped = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "drop"
                      and column in _strings(c) for s in rest for c in ast.walk(s))
        if lagged and dropped:
            out.update(id(c) for c in grouped)
    return frozenset(out) | rekeyed


__all__ = ["PERIOD_COLUMN", "lagged_groupbys"]
