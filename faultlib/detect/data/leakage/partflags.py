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

The target is such a mark too (:func:`unlabelled_part`): a competition's test file has no target column, so after
``both = pd.concat([train, test])`` the target is missing exactly on the test table's rows (pandas user guide,
"Merge, join, concatenate": columns absent from one input are filled with NaN), and ``both[both['Survived'].notna()]``
is the training table again, ``both[both['Survived'].isna()]`` the test table. Read only for a column the script
uses as its target (:func:`~faultlib.detect.data.leakage.targets.target_columns`), on a stack whose parts are
some test tables and some not, where the rows kept are assigned to a name for their side (``train = ...notna()``,
``X_test = ...isna()``): ``known = both[both['Age'].notna()]`` (rows with a known age, from both tables, to fit an
imputation model on) stays a filter.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import target_columns
from faultlib.detect.data.leakage.values import Data, MaybeData, Rows, RowUnion, covers
from faultlib.pyflow.values import Const
from faultlib.pyflow.walk import walk_once


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
        return super()._stack_part(data, index_node, frame) or self._flagged_part(  # type: ignore[misc]
            data, index_node) or self._unlabelled_part(data, index_node)

    def _unlabelled_part(self, data: Data, index_node: ast.expr) -> Data | None:
        """``both[both['Survived'].notna()]`` / ``.isna()`` (``~`` inverts): the training tables of the stack
        ``data`` / its test tables (see the module docstring); ``None`` when not such a mask."""
        if not isinstance(data.rows, RowUnion):
            return None
        mask = missing_mask(index_node)
        if mask is None:
            return None
        col, missing = mask
        if "_target_columns" not in self.__dict__:
            self.__dict__["_target_columns"] = target_columns(self.tree)[0]  # type: ignore[attr-defined]
            self.__dict__["_mask_names"] = _mask_names(self.tree)  # type: ignore[attr-defined]
        name = self.__dict__["_mask_names"].get(id(index_node))
        if col not in self.__dict__["_target_columns"] or not (
                vocab.looks_like_test(name) if missing else vocab.looks_like_train(name)):
            return None
        picked = tuple(p for p in data.rows.parts if p.root.test == missing)
        if not picked or len(picked) == len(data.rows.parts):
            return None
        return Data(picked[0] if len(picked) == 1 else RowUnion(picked), data.taints, missing)

    def _note_part_flag(self, target: ast.expr, value: Any, frame: Any) -> None:
        """``train['is_train'] = 1``: every row of ``train``'s tables holds 1 in that column."""
        from faultlib.detect.data.leakage.values import maybe_data

        col = _column(target)
        if col is None or not isinstance(value, Const) or not isinstance(value.value, (int, str, bool)):
            return
        held = self._lookup(col[0], frame)  # type: ignore[attr-defined]
        data = held.as_data() if isinstance(held, MaybeData) and held.from_file else maybe_data(held)
        if data is not None and isinstance(data.rows, Rows):  # (a stack, or rows of unknown identity: no one table)
            self.__dict__.setdefault("_part_flags", []).append((data.rows, col[1], value.value))

    def _flagged_part(self, data: Data, index_node: ast.expr) -> Data | None:
        """``both[both['is_train'] == 1]``: the parts of the stack ``data`` whose mark is (``!=``: is not) the
        constant; ``None`` when ``index_node`` is not such a comparison or a part's mark is unknown. A name assigned
        once from such a comparison (``is_tr = both['is_train'] == 1; both.loc[is_tr, cols]``) is read as it."""
        if isinstance(index_node, ast.Name) and len(self._bindings.get(index_node.id, [])) == 1:  # type: ignore[attr-defined]
            index_node = self._bindings[index_node.id][0]  # type: ignore[attr-defined]
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


def _mask_names(tree: ast.AST) -> dict[int, str]:
    """``train = both[both['y'].notna()].reset_index()``: the id of each missing-value mask used as a row
    selection on the right of a one-name assignment, with that name."""
    out: dict[int, str] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Subscript) and missing_mask(sub.slice) is not None:
                    out[id(sub.slice)] = node.targets[0].id
    return out


def missing_mask(node: ast.expr) -> tuple[str, bool] | None:
    """``df['t'].isna()`` -> ``('t', True)``, ``df.t.notnull()`` or ``~df['t'].isna()`` -> ``('t', False)``: the
    column and whether the mask keeps the rows where it is missing; ``None`` for any other expression."""
    invert = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        invert, node = not invert, node.operand
    if not (isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("isna", "isnull", "notna", "notnull")):
        return None
    col = _column(node.func.value)
    if col is None:
        return None
    return col[1], (node.func.attr in ("isna", "isnull")) != invert


__all__ = ["PartFlags", "missing_mask"]
