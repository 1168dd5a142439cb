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
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.sole_file import file_stem
from faultlib.detect.data.leakage.values import Data, Step, covers, parts


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
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    tables = {n.targets[0].id for n in assigns if isinstance(n.targets[0], ast.Name) and _reader(n.value)
              and vocab.looks_like_train(file_stem([], n.value))}  # type: ignore[arg-type]
    if not tables:
        return frozenset()
    texts: set[str] = set()
    values: dict[str, list[ast.expr]] = {}
    for n in assigns:
        if isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
    for n in ast.walk(tree):
        if isinstance(n, ast.expr) and _counted(n) in tables:
            texts.add(ast.unparse(n))
    for name, bound in values.items():  # num_train = df_train.shape[0], bound to nothing else
        if all(_counted(v) in tables for v in bound):
            texts.add(name)
    return frozenset(texts)


def _cut(p: Any, start: int, counts: frozenset[str]) -> Step | None:
    return next((s for s in p.steps[start:] if s.kind == "slice" and s.hi is None and s.lo in counts), None)


class TrainRowCuts:
    """The kind of a fit seen before a cut at the training file's row count (needs ``_train_counts`` and
    ``smap``)."""

    _train_counts: frozenset[str] = frozenset()

    def _stacked_kind(self, kind: str, fit: Any, data: Data, why: str) -> tuple[str, str]:
        """``fit_on_test`` with its reason when ``kind`` is ``fit_before_split`` and the held-out rows of ``data``
        are a cut past the training file's row count of a table ``fit`` saw whole; else ``kind`` and ``why``."""
        if kind != "fit_before_split" or not self._train_counts:
            return kind, why
        for f in parts(fit.rows):
            for p in parts(data.rows):
                step = _cut(p, len(f.steps), self._train_counts) if covers(f, p) else None
                if step is not None and not (p.root.from_file and vocab.looks_like_train(p.root.name)):
                    return "fit_on_test", (f"the table stacks the training file's rows and the test file's: the rows "
                                           f"from the training file's row count (`{step.lo}`) on, cut on "
                                           f"{self.smap.describe(step.line)}, are the test file's")  # type: ignore[attr-defined]
        return kind, why


__all__ = ["TrainRowCuts", "train_row_counts"]
