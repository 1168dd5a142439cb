"""A split of row positions (``train_test_split(range(len(X)))``) splits the rows those positions index.

``tr, te = train_test_split(range(dat_x.shape[0]), test_size=0.1)`` then ``dat_x.iloc[te, :]``: the index arrays
are the two parts of ``dat_x``'s rows, exactly as ``train_test_split(dat_x)`` would give them (scikit-learn:
``train_test_split`` accepts any indexable of one length and splits its items). Without this the positions were an
unknown value, ``dat_x.iloc[te]`` an unnamed subset, and a fit on every row before the split was not seen to cover
the held-out part. The table is found where the count is written (``len(X)``, ``X.shape[0]``, or a name assigned
one of them); a count of unknown origin gives positions of their own, whose split still marks each part. A range
written from zero (``np.arange(0, len(X))``, ``range(0, n, 1)``) is the same positions (wave 77's voter homework).

One pair of a splitter's folds taken by ``next`` (``tr, te = next(ShuffleSplit(n_splits=1).split(X))``) is a
single hold-out of ``X``'s rows, as ``train_test_split`` of its positions is (scikit-learn: ``split`` yields
``(train, test)`` index arrays; ``next`` takes the first pair). Without this the pair was an unknown value and
``X.iloc[te]`` an unnamed subset (wave 77: a scaler over every respondent before ``ShuffleSplit`` indices).
The same holds for a splitter of several folds (``next(GroupKFold(5).split(X, y, groups))``): only the first
fold is taken, so no cross-validation scores the rows, and a fit before it is a fit before one split
(:func:`taken_once`; wave 89: a learning-to-rank assignment held one fold of its searches out this way).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, FoldIter, Root, Rows

_RANGES = frozenset({"range", "arange"})


def _zero_based(call: ast.Call) -> ast.expr | None:
    """The count of ``range(n)``, ``range(0, n)`` or ``range(0, n, 1)`` (``None`` for another start or step)."""
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None
    if len(call.args) == 1:
        return call.args[0]
    start, *step = call.args[0], *call.args[2:]
    unit = all(isinstance(s, ast.Constant) and s.value == 1 for s in step)
    return call.args[1] if isinstance(start, ast.Constant) and start.value == 0 and unit else None


def _counted_table(node: ast.expr, bindings: dict[str, list[ast.expr]], depth: int = 2) -> ast.expr | None:
    """``T`` in ``len(T)``/``T.shape[0]`` (or a name assigned one of them, ``depth`` assignments back)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and node.args:
        return node.args[0]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return node.value.value
    if isinstance(node, ast.Name) and depth:
        found = {ast.dump(t) for v in bindings.get(node.id, []) for t in [_counted_table(v, bindings, depth - 1)] if t}
        if len(found) == 1:
            return next(t for v in bindings.get(node.id, []) for t in [_counted_table(v, bindings, depth - 1)] if t)
    return None


def taken_once(tree: ast.AST) -> frozenset[int]:
    """The ``id`` of each ``.split(...)`` call whose folds only ``next`` reads (``next(kf.split(X))``, also through
    ``iter``): one hold-out, no cross-validation."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "next" and \
                len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "iter" and arg.args:
                arg = arg.args[0]
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "split":
                out.add(id(arg))
    return frozenset(out)


class RowPositions:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.name == "next" and len(args) == 1 and isinstance(args[0], FoldIter) and args[0].data is not None \
                and args[0].data.rows is not None:
            return self._split([args[0].data.with_(taints=frozenset())], node.lineno)  # (semantics.py)
        if ref.last in vocab.SPLIT_FUNCTIONS and node.args and args and not isinstance(args[0], Data):
            first = node.args[0]
            func = first.func if isinstance(first, ast.Call) else None
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            count = _zero_based(first) if name in _RANGES and isinstance(first, ast.Call) else None
            if count is not None:
                from faultlib.detect.data.leakage.values import maybe_data

                table = _counted_table(count, self._bindings)
                rows = maybe_data(self._expr(table, frame)) if isinstance(table, ast.Name) else None
                if rows is None or rows.rows is None:
                    rows = Data(Rows(Root(ast.unparse(first)[:40], node.lineno)))
                args = [rows.with_(taints=frozenset()), *args[1:]]
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _taken_once(self, node: ast.Call) -> bool:
        """Only ``next`` reads the folds of the split call ``node``: one hold-out, no cross-validation."""
        if not hasattr(self, "_split_once"):
            self._split_once = taken_once(self.tree)
        return id(node) in self._split_once

    _bindings: dict
    _split: Any
    tree: ast.Module


__all__ = ["RowPositions", "taken_once"]
