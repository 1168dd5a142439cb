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
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
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


def lagged_groupbys(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``groupby`` calls whose statistic reaches the rows only as lags (see the module docstring)."""
    lags = _lag_functions(tree)
    if not lags:
        return frozenset()
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
    return frozenset(out)


__all__ = ["lagged_groupbys"]
