"""A column that marks which table a row of a stack came from, for the static leakage analysis.

Competition code marks the tables before stacking them and cuts the stack back by the mark::

    train['is_train'] = 1
    test['is_train'] = 0
    both = pd.concat([train, test])        # (or train.append(test))
    ...                                     # statistics over both
    train_part = both[both['is_train'] == 1]
    test_part = both[both['is_train'] == 0]

A column set to one constant on a whole table holds that constant on every row of it (pandas user guide,
"Indexing and selecting data": setting a column to a scalar broadcasts it), and a stack keeps each row's values,
so ``both['is_train'] == 1`` selects exactly the rows that came from ``train``: the training part of the stack,
not some filter of every row (:class:`PartFlags`). Without this the cut-back part still counted the test table's
rows among its own, and a fit on it (a selector on the training features) looked like a fit on the test rows.
Only ``==`` and ``!=`` against a constant, on a column every part of the stack had set to a constant, are read;
anything else stays a plain filter.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import Data, MaybeData, Rows, RowUnion, covers
from faultlib.pyflow.values import Const


def _column(node: ast.expr) -> tuple[str, str] | None:
    """``df['col']`` / ``df.col`` -> ``('df', 'col')``."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.value.id, node.slice.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id, node.attr
    return None


_UNSET = object()


class PartFlags:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring), placed before
    :class:`~faultlib.detect.data.leakage.fresh.FreshTables` and
    :class:`~faultlib.detect.data.leakage.frames.FrameSemantics`: every column store asks ``_fill_fresh`` first
    (the mark is noted there), every row selection asks ``_stack_part`` (the marked part is picked there)."""

    def _fill_fresh(self, target: ast.expr, owner: Any, value: Any, frame: Any) -> bool:
        self._note_part_flag(target, value, frame)
        return super()._fill_fresh(target, owner, value, frame)  # type: ignore[misc]

    def _stack_part(self, data: Data, index_node: ast.expr, frame: Any) -> Data | None:
        return super()._stack_part(data, index_node, frame) or self._flagged_part(data, index_node)  # type: ignore

    def _note_part_flag(self, target: ast.expr, value: Any, frame: Any) -> None:
        """``train['is_train'] = 1``: every row of ``train``'s tables holds 1 in that column."""
        from faultlib.detect.data.leakage.semantics import _maybe_data

        col = _column(target)
        if col is None or not isinstance(value, Const) or not isinstance(value.value, (int, str, bool)):
            return
        held = self._lookup(col[0], frame)  # type: ignore[attr-defined]
        data = held.as_data() if isinstance(held, MaybeData) and held.from_file else _maybe_data(held)
        if data is not None and isinstance(data.rows, Rows):  # (a stack, or rows of unknown identity: no one table)
            self.__dict__.setdefault("_part_flags", []).append((data.rows, col[1], value.value))

    def _flagged_part(self, data: Data, index_node: ast.expr) -> Data | None:
        """``both[both['is_train'] == 1]``: the parts of the stack ``data`` whose mark is (``!=``: is not) the
        constant; ``None`` when ``index_node`` is not such a comparison or a part's mark is unknown."""
        if not (isinstance(data.rows, RowUnion) and isinstance(index_node, ast.Compare) and len(index_node.ops) == 1
                and isinstance(index_node.ops[0], (ast.Eq, ast.NotEq))
                and isinstance(index_node.comparators[0], ast.Constant)):
            return None
        col = _column(index_node.left)
        flags = self.__dict__.get("_part_flags", [])
        if col is None or not flags:
            return None
        marks = [next((v for rows, c, v in reversed(flags) if c == col[1] and covers(rows, p)), _UNSET)
                 for p in data.rows.parts]  # the mark set on that table (or on rows it was cut from)
        if any(m is _UNSET for m in marks):
            return None
        want = index_node.comparators[0].value
        equal = isinstance(index_node.ops[0], ast.Eq)
        picked = tuple(p for p, m in zip(data.rows.parts, marks) if (m == want) == equal)
        if not picked or len(picked) == len(data.rows.parts):
            return None
        return Data(picked[0] if len(picked) == 1 else RowUnion(picked), data.taints, any(p.root.test for p in picked))


__all__ = ["PartFlags"]
