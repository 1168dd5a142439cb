"""Rows selected because their label is missing are the rows to predict, for the static leakage analysis.

Competition code stacks the training labels with placeholders for the rows to predict, builds one table of
out-of-fold and test predictions beside them, and takes the two sides back by the label::

    preds = pl.concat([train["price"].to_frame(),                        # the labelled rows
                       pl.DataFrame([None] * test.height, schema={"price": pl.Float64})])   # no label yet
    ...
    test = preds.filter(pl.col("price").is_null())                      # pandas: stack[stack['price'].isna()]

A missing value tests true in ``isna``/``isnull`` (pandas API reference, "DataFrame.isna": "NA values, such as
None or numpy.NaN, get mapped to True values"; polars "Expr.is_null"), and a row of a table the script trains on
has its label, so the rows whose label is missing are none of the labelled rows: they are the rows added for
prediction, the test or submission part. Before, the selection was read as a filter of the labelled table
(the placeholders are no table the analysis follows), so the training table named ``test`` made every fit on the
training rows a fit on held-out rows (or one before a split, for a pandas stack; issue 17, a SIGNATE polars
project: fits on the training rows before the models' K-fold are ``fit_outside_cv``).

:meth:`LabelGaps._label_gap` reads a mask that keeps the rows where a label column is missing
(``X['t'].isna()``, ``X.t.isnull()``, ``pl.col('t').is_null()``, ``~X['t'].notna()``, ``y.isnull()`` with ``y``
bound to ``X['t']`` or named for the label), a label column being a target of the script
(:func:`~faultlib.detect.data.leakage.targets.target_columns`, the names passed as labels) or a column read into a
name or an attribute named for the label (``self.y_train = self.train['price']``). Of a stack holding test tables
(read from their own files, named for testing) it keeps those tables; of a stack of training tables
(:func:`~faultlib.detect.data.leakage.values.is_training_part`) and other rows (a frame of placeholders) it keeps a
selection of the other rows only; of rows that are all training rows taken from a name the script binds to a stack
of listed items along the rows (``pd.concat``, ``pl.concat``, ``np.vstack``: the items the analysis could not read
are the placeholders) it gives rows of their own, named for testing. A table read whole and parted by its label
(``all[all.y.isnull()]``: a features file holding both sides) stays a filter of it (:mod:`.trainrows`).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import label_like
from faultlib.detect.data.leakage.values import Data, Root, Rows, RowUnion, is_training_part, parts
from faultlib.pyflow.walk import walk_once

#: mask methods true where the value is missing / present (pandas ``isna``, polars ``is_null``)
_MISSING = frozenset({"isna", "isnull", "is_null"})
_PRESENT = frozenset({"notna", "notnull", "is_not_null"})
#: calls that keep a column's values (``s.values``, ``s.to_numpy()``, ``s.clone()``)
_KEEPS = frozenset({"values", "to_numpy", "clone", "copy", "astype", "ravel", "to_frame", "to_list"})


def _column(node: ast.expr) -> str | None:
    """``X['t']`` / ``X.t`` / ``pl.col('t')`` -> ``'t'``; a bare name -> the name itself."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "col" and \
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr not in vocab.DATA_ATTRIBUTES:
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def missing_column(node: ast.expr) -> ast.expr | None:
    """The column expression of a mask true where it is missing (``X['t'].isna()``, ``~pl.col('t').is_not_null()``),
    else ``None``."""
    invert = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        invert, node = not invert, node.operand
    if not (isinstance(node, ast.Call) and not node.args and isinstance(node.func, ast.Attribute)):
        return None
    attr = node.func.attr
    return node.func.value if (attr in _MISSING and not invert) or (attr in _PRESENT and invert) else None


def _read_column(value: ast.expr) -> str | None:
    """``X['t']``, ``X['t'].values``, ``X.t.to_numpy()``: the column ``t`` read whole, else ``None``."""
    while True:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _KEEPS:
            value = value.func.value
        elif isinstance(value, ast.Attribute) and value.attr in _KEEPS:
            value = value.value
        else:
            break
    return _column(value) if isinstance(value, (ast.Subscript, ast.Attribute)) else None


def label_reads(tree: ast.AST) -> tuple[frozenset[str], dict[str, set[str]]]:
    """Columns read into a name or an attribute named for the label (``y = df['t']``, ``self.y_train =
    self.train['price'].values``), and the columns each plain name is bound to (``label = stack['t']``)."""
    labels: set[str] = set()
    bound: dict[str, set[str]] = {}
    for n in walk_once(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
            continue
        target, col = n.targets[0], _read_column(n.value)
        if col is None:
            continue
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
        if label_like(name):
            labels.add(col)
        if isinstance(target, ast.Name):
            bound.setdefault(target.id, set()).add(col)
    return frozenset(labels), bound


def selection_sources(tree: ast.AST) -> dict[int, ast.expr]:
    """For each row mask, the expression of the rows it selects from: ``X[mask]``, ``X.loc[mask, cols]``,
    ``X.filter(mask)`` -> ``X``."""
    out: dict[int, ast.expr] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Subscript):
            base = n.value.value if isinstance(n.value, ast.Attribute) and n.value.attr in ("loc", "iloc") else n.value
            index = n.slice.elts[0] if isinstance(n.slice, ast.Tuple) and n.slice.elts else n.slice
            out[id(index)] = base
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "filter":
            for arg in n.args:
                out[id(arg)] = n.func.value
    return out


def _row_stack(value: ast.expr) -> bool:
    """``pd.concat([a, b])``, ``pl.concat([a, b], how='vertical')``, ``np.vstack((a, b))``: listed items stacked
    along the rows."""
    if not (isinstance(value, ast.Call) and value.args and isinstance(value.args[0], (ast.List, ast.Tuple))
            and len(value.args[0].elts) > 1):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    along_columns = any(k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in (1, "columns")
                        or k.arg == "how" and isinstance(k.value, ast.Constant) and "horizontal" in str(k.value.value)
                        for k in value.keywords)
    return name in vocab.ROW_STACKS and len(value.args) == 1 and not along_columns


class LabelGaps:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``tree``, ``_label_columns`` and
    ``_bindings``), placed before :class:`~faultlib.detect.data.leakage.partflags.PartFlags`: every row selection
    asks ``_stack_part``, and the rows without a label are picked there (see the module docstring)."""

    def _stack_part(self, data: Data, index_node: ast.expr, frame: Any) -> Data | None:
        return super()._stack_part(data, index_node, frame) or self._label_gap(  # type: ignore[misc]
            data, index_node)

    def _label_gap(self, data: Data, index_node: ast.expr) -> Data | None:
        """The rows of ``data`` whose label the mask ``index_node`` finds missing, or ``None`` when it is no such
        mask or the rows are not known apart (see the module docstring)."""
        column = missing_column(index_node)
        if column is None or data.rows is None or not self._is_label(_column(column)):
            return None
        every = parts(data.rows)
        held = tuple(p for p in every if p.root.test)
        if held:
            if len(held) == len(every):
                return None  # every row is a test table's already
            return Data(held[0] if len(held) == 1 else RowUnion(held), data.taints, True)
        rest = tuple(p for p in every if not is_training_part(p))
        if rest and len(rest) < len(every):  # the training tables of the stack left out, the rest still filtered
            step = self._filter_step(index_node, index_node.lineno)  # type: ignore[attr-defined]
            kept = tuple(p.child(step) for p in rest)
            return Data(kept[0] if len(kept) == 1 else RowUnion(kept), data.taints, data.test)
        source = self._gap_sources().get(id(index_node))
        if rest or not (isinstance(source, ast.Name) and any(
                _row_stack(v) for v in self._bindings.get(source.id, ()))):  # type: ignore[attr-defined]
            return None
        root = Root(f"{source.id} without a label", index_node.lineno, test=True)
        return Data(Rows(root), data.taints, True)

    def _is_label(self, column: str | None) -> bool:
        if column is None:
            return False
        if "_label_reads" not in self.__dict__:
            self.__dict__["_label_reads"] = label_reads(self.tree)  # type: ignore[attr-defined]
        labels, bound = self.__dict__["_label_reads"]
        known = set(getattr(self, "_label_columns", ())) | labels
        return column in known or label_like(column) or bool(bound.get(column, set()) & known)

    def _gap_sources(self) -> dict[int, ast.expr]:
        if "_selection_sources" not in self.__dict__:
            self.__dict__["_selection_sources"] = selection_sources(self.tree)  # type: ignore[attr-defined]
        return self.__dict__["_selection_sources"]


__all__ = ["LabelGaps", "label_reads", "missing_column", "selection_sources"]
