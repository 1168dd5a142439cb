"""A table cut at the training file's row count stacks the training file's rows and the test file's.

Kaggle solutions build one features table over ``train.csv`` and ``test.csv`` (often in another script, read back
from a features file), keep ``num_train = df_train.shape[0]``, and cut the table apart again:
``X_train = X[:num_train]``, ``X_test = X[num_train:]``. The rows past the training file's row count are then the
competition test rows, so a fit over the whole table before the cut saw the test file's rows: the house kind for
train and test stacked, ``fit_on_test`` (:data:`faultlib.detect.data.leakage.DETECTOR` kinds), not
``fit_before_split`` (which says a split of labelled rows came after the fit).

Precision first: the bound must be the row count (``len(T)``, ``len(T.index)``, ``T.shape[0]``, or a name bound
only to one of them) of a table ``T`` read from a training-named file while the script also names a test-named
file; and the cut table must not be that training table itself.

The same table is often read whole (``all = pd.read_csv('features.csv')``) and parted by its label column: the
competition test rows carry a placeholder or no label, ``train = all[all.y != -1]`` / ``test = all[all.y == -1]``
(or ``.isnull()``), and ``y_train = train['y']`` (:func:`label_cuts`). The part whose label is never read is the
unlabelled test rows (nothing can score them), so a fit over the whole table saw the test rows: ``fit_on_test``;
and ``X[len(train):]`` cuts at the labelled part's row count. Precision first: two selections of one table by one
target column (:func:`faultlib.detect.data.leakage.targets.target_columns`), the label of one part read, of the
other never.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.sole_file import file_stem
from faultlib.detect.data.leakage.values import Data, Step, covers, parts
from faultlib.pyflow.walk import walk_once


def _reader(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return name in vocab.FILE_READERS


def _counted(node: ast.expr) -> str | None:
    """The table whose row count ``node`` is (``len(T)``, ``len(T.index)``, ``T.shape[0]``), else ``None``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
            len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        if isinstance(arg, ast.Attribute) and arg.attr == "index":
            arg = arg.value
        return arg.id if isinstance(arg, ast.Name) else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0 and \
            isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and isinstance(node.value.value, ast.Name):
        return node.value.value.id
    return None


def train_row_counts(tree: ast.AST, separate_test: bool) -> frozenset[str]:
    """Source texts of the training file's row count in ``tree`` (``'num_train'``, ``'len(df_train)'``,
    ``'df_train.shape[0]'``), as a slice bound is written (:func:`ast.unparse`); empty without a test file
    (``separate_test``: a test-named data file beside the training one)."""
    if not separate_test:
        return frozenset()
    assigns = [n for n in walk_once(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    tables = {n.targets[0].id for n in assigns if isinstance(n.targets[0], ast.Name) and _reader(n.value)
              and vocab.looks_like_train(file_stem([], n.value))}  # type: ignore[arg-type]
    if not tables:
        return frozenset()
    texts: set[str] = set()
    values: dict[str, list[ast.expr]] = {}
    for n in assigns:
        if isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
    for n in walk_once(tree):
        if isinstance(n, ast.expr) and _counted(n) in tables:
            texts.add(ast.unparse(n))
    for name, bound in values.items():  # num_train = df_train.shape[0], bound to nothing else
        if all(_counted(v) in tables for v in bound):
            texts.add(name)
    return frozenset(texts)


_NULL_TESTS = frozenset({"isnull", "isna", "notnull", "notna"})
_CHAINED = frozenset({"copy", "reset_index", "drop", "sort_values", "fillna"})


def _column(node: ast.expr, table: str, targets: set) -> str | None:
    """``T['c']`` / ``T.c`` with ``c`` a target column, else ``None``."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == table and \
            isinstance(node.slice, ast.Constant) and node.slice.value in targets:
        return node.slice.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == table and \
            node.attr in targets:
        return node.attr
    return None


def _label_selection(value: ast.expr, targets: set) -> tuple[str, str, int] | None:
    """``T[T['c'] == v]``, ``T.loc[T.c.isnull()].copy()``: (table, target column, line), else ``None``."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _CHAINED:
        value = value.func.value
    if not isinstance(value, ast.Subscript):
        return None
    base = value.value.value if isinstance(value.value, ast.Attribute) and value.value.attr == "loc" else value.value
    if not isinstance(base, ast.Name):
        return None
    cond = value.slice.operand if isinstance(value.slice, ast.UnaryOp) else value.slice
    if isinstance(cond, ast.Call) and isinstance(cond.func, ast.Attribute) and cond.func.attr in _NULL_TESTS:
        cond = cond.func.value
    elif isinstance(cond, ast.Compare) and len(cond.ops) == 1:
        cond = cond.left
    else:
        return None
    column = _column(cond, base.id, targets)
    return (base.id, column, value.lineno) if column is not None else None


def label_cuts(tree: ast.AST, targets: set) -> tuple[frozenset[str], frozenset[int]]:
    """A table parted by its label column (module doc): the row counts of its labelled part, as a slice bound is
    written (``'len(train)'``, ``'train.shape[0]'``, ``'train_num'``), and the lines selecting its unlabelled
    part."""
    parts: dict[tuple[str, str], list[tuple[str, int]]] = {}
    values: dict[str, list[ast.expr]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
            sel = _label_selection(n.value, targets)
            if sel is not None:
                parts.setdefault(sel[:2], []).append((n.targets[0].id, sel[2]))
    read = {(n.value.id, n.slice.value if isinstance(n, ast.Subscript) else n.attr) for n in walk_once(tree)
            if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Load) and
            isinstance(n.value, ast.Name) and (isinstance(n, ast.Attribute) or isinstance(n.slice, ast.Constant))}
    labelled: set[str] = set()
    lines: set[int] = set()
    for (_, column), chosen in parts.items():
        known = [(name, line) for name, line in chosen if (name, column) in read]
        unknown = [line for name, line in chosen if (name, column) not in read]
        if known and unknown and len({name for name, _ in chosen}) == len(chosen):
            labelled |= {name for name, _ in known}
            lines |= set(unknown)
    texts = {t for n in walk_once(tree) if isinstance(n, ast.expr) and _counted(n) in labelled for t in [ast.unparse(n)]}
    texts |= {name for name, bound in values.items() if all(_counted(v) in labelled for v in bound)}
    return frozenset(texts), frozenset(lines)


def _cut(p: Any, start: int, counts: frozenset[str]) -> Step | None:
    return next((s for s in p.steps[start:] if s.kind == "slice" and s.hi is None and s.lo in counts), None)


class TrainRowCuts:
    """The kind of a fit seen before a cut at the training file's row count (needs ``_train_counts`` and
    ``smap``)."""

    _train_counts: frozenset[str] = frozenset()
    _bare_label_lines: frozenset[int] = frozenset()  # lines selecting the rows without a label (label_cuts)

    def _stacked_kind(self, kind: str, fit: Any, data: Data, why: str) -> tuple[str, str]:
        """``fit_on_test`` with its reason when ``kind`` is ``fit_before_split`` and the held-out rows of ``data``
        are a cut past the training file's row count of a table ``fit`` saw whole, or the part of it whose label
        is never read; else ``kind`` and ``why``."""
        if kind != "fit_before_split" or not (self._train_counts or self._bare_label_lines):
            return kind, why
        held = list(getattr(self, "_test_parts", ()))  # the held-out parts noted so far (a model trained after)
        for f in parts(fit.rows):
            for p in [*parts(data.rows), *held]:
                bare = next((s for s in p.steps[len(f.steps):] if s.kind == "filter" and s.line in self._bare_label_lines),
                            None) if covers(f, p) else None
                if bare is not None:
                    return "fit_on_test", (f"the table stacks labelled rows and rows without a label: the rows "
                                           f"selected by the label column on {self.smap.describe(bare.line)} "  # type: ignore[attr-defined]
                                           f"are never scored by their label, the test rows")
                step = _cut(p, len(f.steps), self._train_counts) if covers(f, p) else None
                if step is not None and not (p.root.from_file and vocab.looks_like_train(p.root.name)):
                    return "fit_on_test", (f"the table stacks the training file's rows and the test file's: the rows "
                                           f"from the training file's row count (`{step.lo}`) on, cut on "
                                           f"{self.smap.describe(step.line)}, are the test file's")  # type: ignore[attr-defined]
        return kind, why


__all__ = ["TrainRowCuts", "label_cuts", "train_row_counts"]
