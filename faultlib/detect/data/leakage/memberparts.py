"""Parts of a stack picked back by their own keys, for the static leakage analysis.

Competition code stacks the tables to build features once, then takes each table back by its keys::

    full = pd.concat([train, test])                              # (or pl.concat([train, test]))
    ...                                                           # features over full
    train = full[full['date_id'].isin(train['date_id'])]          # polars: full.filter(pl.col('date_id')
    test = full[full['date_id'].isin(test['date_id'])]            #     .is_in(train.get_column('date_id')))

A membership mask keeps the rows whose key is among the other table's keys (pandas API reference,
``Series.isin``: "whether each element in the Series is contained in values"; polars API reference,
``Expr.is_in``), so when the keys come from one table of the stack the rows kept are that table's rows: the
training part, not a filter of every row. Without this the part taken back still counted the test table's rows,
and a scaler fitted on it looked like a fit on the test rows (wave 56: a Kaggle market notebook). Only a mask
whose whole expression is one ``isin``/``is_in`` of a column of tables stacked into the same frame is read, and
only when it picks some parts and not all; any other mask stays a plain filter.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.groupfolds import fold_step
from faultlib.detect.data.leakage.values import Data, RowUnion, parts

_MEMBERSHIP = frozenset({"isin", "is_in"})


def membership_keys(mask: ast.expr) -> ast.expr | None:
    """The expression of the keys in ``stack[c].isin(keys)`` / ``pl.col(c).is_in(keys)``; ``None`` otherwise."""
    if isinstance(mask, ast.Call) and isinstance(mask.func, ast.Attribute) and mask.func.attr in _MEMBERSHIP \
            and len(mask.args) == 1 and not mask.keywords:
        return mask.args[0]
    return None


class MemberParts:
    """``stack[stack[c].isin(part[c])]`` and ``stack.filter(pl.col(c).is_in(part[c]))``: that part of the
    stack (see the module docstring), or that part of a fold over distinct keys (:mod:`.groupfolds`). A mixin of the
    analyzer (it needs ``_expr`` and ``_derive``)."""

    def _stack_part(self, data: Data, index_node: ast.expr, frame: Any) -> Data | None:
        return super()._stack_part(data, index_node, frame) or self._member_part(  # type: ignore[misc]
            data, index_node, frame)

    def _frame_method(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        from faultlib.detect.data.leakage.values import maybe_data

        data = maybe_data(receiver)
        if name == "filter" and len(node.args) == 1 and data is not None:
            picked = self._member_part(data, node.args[0], frame)
            if picked is not None:
                return picked
        return super()._frame_method(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _member_part(self, data: Data, mask: ast.expr, frame: Any) -> Data | None:
        """The parts of the stack ``data`` whose rows the membership ``mask`` keeps, or the part of a fold over the
        distinct keys (groupfolds.py); ``None`` when not such a mask, not a stack, or the keys' table is not one of
        its parts."""
        keys = membership_keys(mask)
        if keys is None or data.rows is None:
            return None
        from faultlib.detect.data.leakage.values import data_rows_child, maybe_data

        value = self._expr(keys, frame)  # type: ignore[attr-defined]
        step = fold_step(value)  # df.filter(pl.col('day').is_in(valid_days)): that fold's rows (groupfolds.py)
        if step is not None:
            return self._derive(data, data_rows_child(data, step), step.line)  # type: ignore[attr-defined]
        if not isinstance(data.rows, RowUnion):
            return None
        owner = maybe_data(value)
        roots = {p.root for p in parts(owner.rows)} if owner is not None else set()
        picked = tuple(p for p in data.rows.parts if p.root in roots)
        if not picked or len(picked) == len(data.rows.parts):
            return None
        return Data(picked[0] if len(picked) == 1 else RowUnion(picked), data.taints, any(p.root.test for p in picked))


__all__ = ["MemberParts", "membership_keys"]
