"""Rows appended without a label are rows to predict, for the static leakage analysis.

Forecasting code builds the rows it will predict by copying known rows forward and blanking their target:

    for i in range(1, 29):
        day = grid[grid['d'] == END].copy()
        day['d'] = END + i
        day[TARGET] = np.nan          # no label: a row the model will predict
        add = pd.concat([add, day])
    grid = pd.concat([grid, add])     # training rows and rows to predict, stacked
    grid['week'] = grid['week'] - grid['week'].min()

After ``day[TARGET] = np.nan`` the table holds **new rows whose label is unknown**: the competition's test rows
(the forecast horizon), not the rows it was copied from. They are given a root of their own, named for testing,
so that a statistic over the stacked table is a statistic over train and test rows together (``fit_on_test``,
as for ``pd.concat([train, test])`` with ``test`` read from ``test.csv``; the house policy on transductive
statistics). The column must be named for the target (``TARGET``, ``'label'``, ``self.params.target``:
:func:`~faultlib.detect.data.leakage.targets.label_like`) and the value a missing value (``np.nan``, ``None``,
``pd.NA``, ``float('nan')``); a feature column blanked the same way (or a column for predictions, ``ypred``,
``y_hat``) is not a label and changes nothing.

A table of test rows already (the competition's ``test.csv``) blanked the same way before it is stacked with the
training table (``test[target_col] = np.nan; full = pd.concat([train, test])``) keeps its rows: they are the rows to
predict already, and a new root would lose the mark it carries (``test['is_train'] = 0``: partflags.py; wave 92).

A statistic of that target column itself over the stacked table (``grid.groupby('item')[TARGET].transform('mean')``,
a target encoding) skips the blank labels: it is computed on the labelled rows only (:meth:`_labelled_only`).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import label_like
from faultlib.detect.data.leakage.values import Data, Root, RowUnion, Rows, parts

_MISSING_ATTRS = frozenset({"nan", "NaN", "NAN", "NA"})
_PREDICTION_TOKENS = frozenset({"hat", "proba", "prob", "probs", "score", "scores", "est", "fitted"})


def _missing(node: ast.expr) -> bool:
    """``np.nan``, ``numpy.NaN``, ``pd.NA``, ``None``, ``float('nan')``."""
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Attribute):
        return node.attr in _MISSING_ATTRS and isinstance(node.value, ast.Name)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and \
        len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and \
        str(node.args[0].value).lower() == "nan"


def _key_name(key: ast.expr) -> str | None:
    if isinstance(key, ast.Name):
        return key.id
    if isinstance(key, ast.Attribute):
        return key.attr
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    return None


def unlabelled_table(node: ast.stmt) -> str | None:
    """The table ``node`` blanks the target column of (``day[TARGET] = np.nan``), else ``None``."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and _missing(node.value)):
        return None
    target = node.targets[0]
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return None
    key = _key_name(target.slice)
    return target.value.id if label_like(key) and not _prediction(key) else None


def _prediction(name: str | None) -> bool:
    """``ypred``, ``y_hat``, ``target_proba``: a column for predictions, not the label."""
    return any("pred" in t or t in _PREDICTION_TOKENS for t in vocab.name_tokens(name or ""))


class UnlabelledRows:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_lookup`` and ``_store``):
    after ``table[TARGET] = np.nan`` the table's rows are rows to predict (see the module docstring)."""

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        super()._stmt(node, frame)  # type: ignore[misc]
        name = unlabelled_table(node)
        if name is None:
            return
        from faultlib.detect.data.leakage.values import maybe_data

        data = maybe_data(self._lookup(name, frame))  # type: ignore[attr-defined]
        if data is None or data.rows is None:
            return
        key = node.targets[0].slice  # type: ignore[attr-defined]
        blanked = self._blanked()
        if all(p.root.test for p in parts(data.rows)):
            # the competition's test table blanked before a stack (test[TARGET] = np.nan): the same rows, already
            # rows to predict; a new root would lose what is known of them (the is_train mark: partflags.py)
            blanked["roots"] |= {p.root.uid for p in parts(data.rows)}
            blanked["columns"] |= self._column_keys(key, frame)
            return
        root = Root(name, node.lineno, True)
        self._store(name, Data(Rows(root), data.taints, True), frame)  # type: ignore[attr-defined]
        blanked["roots"].add(root.uid)
        blanked["columns"] |= self._column_keys(key, frame)

    def _blanked(self) -> dict[str, set]:
        if not hasattr(self, "_unlabelled"):
            self._unlabelled: dict[str, set] = {"roots": set(), "columns": set()}
        return self._unlabelled

    def _column_keys(self, key: ast.expr, frame: Any) -> set[str]:
        """The names a column key may go by: ``TARGET`` and the string it holds (``'sales'``)."""
        out = {n for n in [_key_name(key)] if n}
        if isinstance(key, ast.Name):
            held = getattr(self._lookup(key.id, frame), "value", None)  # type: ignore[attr-defined]
            if isinstance(held, str):
                out.add(held)
        return out

    def _labelled_only(self, data: Data, node: ast.Call, frame: Any) -> Data:
        """``data`` without the rows to predict when the statistic ``node`` reads the blanked target column only
        (``grid[TARGET].mean()``, ``grid.groupby(c)['sales'].transform('std')``)."""
        blanked = getattr(self, "_unlabelled", None)
        if not blanked or not blanked["roots"] or not isinstance(data.rows, (Rows, RowUnion)):
            return data
        func = node.func
        column = func.value if isinstance(func, ast.Attribute) else None
        if not (isinstance(column, ast.Subscript) and self._column_keys(column.slice, frame) & blanked["columns"]):
            return data
        kept = tuple(p for p in parts(data.rows) if p.root.uid not in blanked["roots"])
        if not kept or len(kept) == len(parts(data.rows)):
            return data
        return Data(kept[0] if len(kept) == 1 else RowUnion(kept), data.taints, data.test)


__all__ = ["UnlabelledRows", "unlabelled_table"]
