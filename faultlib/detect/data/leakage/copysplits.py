"""Which lines of a program split rows one by one, parting the copies of a repeated table, for the static leakage
analysis.

A whole table repeated (``pd.concat([df, df])``, ``pd.concat([X] * k)``) holds every row ``k`` times. A split that
deals rows out one by one -- ``train_test_split``, ``KFold``/``StratifiedKFold`` (shuffled or not: a row's copies lie
``len(df)`` positions apart, so in other folds, and the tail ``shuffle=False`` holds out is copies of earlier rows),
``ShuffleSplit``, ``RepeatedKFold``, ``LeaveOneOut``, a cross-validation function given such a splitter or a fold
count, a random draw (``df.sample(frac=0.8)``, ``np.random.permutation``) or a random mask (``np.random.rand(len(df))
< 0.8``) -- puts copies of one row on both sides: the "duplicates shared by train and test" of issue 17, the test rows
seen in training (Kaufman, Rosset, Perlich & Stitelman, "Leakage in data mining", ACM TKDD 2012). A split by a key
the copies share keeps them together and parts none (scikit-learn user guide, "Cross-validation iterators for grouped
data": ``GroupKFold``, ``GroupShuffleSplit``, ``LeaveOneGroupOut``, ``groups=``; a mask on a column's value,
``df[df.year == y]``, ``df[df.date < cut]``), and so does no split at all (a submission's rows repeated and only
predicted). Other splits (``TimeSeriesSplit``, ``PredefinedSplit``, a splitter held in an attribute) are not read as
parting copies: silent rather than guessed. Judged at stop 53 (issue 17): the bagged copies of a forecasting solution
held out by the year of their target day, and its repeated submission rows, are no leak; the same table doubled then
split by ``train_test_split`` is.

Read from the code alone: the lines of each statement holding such a split, a name followed to what the module binds
to it (``cv = KFold(5, shuffle=True)``, ``folds = list(cv.split(X))``, ``keep = np.random.rand(n) < 0.8``).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.values import covers, parts
from faultlib.pyflow.walk import walk_once

#: splitters that deal rows out one by one (scikit-learn's row-wise cross-validation iterators: every splitter but
#: the group-wise ones and those that keep an order or a given assignment)
ROW_SPLITTERS = vocab.SPLITTERS - vocab.GROUP_SPLITTERS - {"TimeSeriesSplit", "PredefinedSplit"}
#: calls that cross-validate what they are given (``cv=`` says how: a fold count, or row-wise K-fold when left out)
_CROSS_VALIDATES = frozenset(vocab.CV_FUNCTIONS) | {"GridSearchCV", "RandomizedSearchCV", "HalvingGridSearchCV",
                                                   "HalvingRandomSearchCV"}
#: calls that draw rows or positions at random: a random sample, a permutation, uniform numbers for a mask
_RANDOM_DRAWS = frozenset({"sample", "permutation", "rand", "random", "random_sample", "uniform", "shuffle"})


def _constructed(node: ast.expr | None, names: dict[str, list[ast.expr]], depth: int = 0) -> str | None:
    """The splitter class ``node`` builds or names (``KFold(5)``, ``cv`` with ``cv = KFold(5)``), else ``None``."""
    if isinstance(node, ast.Name) and depth < 3:
        return next((c for c in (_constructed(v, names, depth + 1) for v in names.get(node.id, ())) if c), None)
    return call_name(node) if isinstance(node, ast.Call) else None


def _parts_rows(call: ast.Call, names: dict[str, list[ast.expr]]) -> bool:
    """``call`` splits rows one by one (see the module docstring)."""
    name = call_name(call)
    kwargs = {k.arg: k.value for k in call.keywords}
    if name == "train_test_split" or name in _RANDOM_DRAWS:
        return True
    if name == "split" and isinstance(call.func, ast.Attribute):
        return _constructed(call.func.value, names) in ROW_SPLITTERS
    if name in _CROSS_VALIDATES and "groups" not in kwargs:
        cv = kwargs.get("cv")
        return cv is None or isinstance(cv, ast.Constant) and isinstance(cv.value, int) or _constructed(
            cv, names) in ROW_SPLITTERS
    return False


def _followed(node: ast.AST, bound: bool) -> list[str]:
    """The names in ``node`` that may stand for a split's rows or positions, never the table split: in a statement,
    a subscript's key (``X[keep]``), a loop's folds (``for tr, te in folds``), a part's index (``df.drop(
    train.index)``); in a value bound to such a name, the names of a mask (``keep = a & b``) or the positions cut
    from (``order[:n]``)."""
    if not bound:
        keys: list[ast.AST] = [] if isinstance(node, ast.stmt) else [node]
        for sub in ast.walk(node):
            if isinstance(sub, ast.Subscript):
                keys.append(sub.slice)
            elif isinstance(sub, ast.Attribute) and sub.attr == "index":
                keys.append(sub.value)
        return [n.id for k in keys for n in ast.walk(k) if isinstance(n, ast.Name)]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Name)) or isinstance(node, ast.BinOp) and \
            isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    return []


def _splits_within(node: ast.AST, names: dict[str, list[ast.expr]], seen: set[str], bound: bool = False) -> bool:
    """A row-wise split in ``node`` or in what a name standing for rows or positions in it is bound to (``for tr,
    te in folds``, ``X[keep]``)."""
    if any(isinstance(sub, ast.Call) and _parts_rows(sub, names) for sub in ast.walk(node)):
        return True
    for name in _followed(node, bound):
        if name not in seen:
            seen.add(name)
            if any(_splits_within(v, names, seen, True) for v in names.get(name, ())):
                return True
    return False


def row_split_lines(tree: ast.AST, names: dict[str, list[ast.expr]]) -> frozenset[int]:
    """The lines of every simple statement, or loop header, that splits rows one by one (see the module docstring):
    a row selection or a fold made on one of them parts the copies of a repeated table. ``names``: the values the
    module assigns to each name (:func:`~faultlib.detect.data.leakage.choices.bindings`)."""
    out: set[int] = set()
    for node in walk_once(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            header: ast.AST = node.iter
        elif isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef, ast.If, ast.While, ast.With,
                                                                   ast.Try)):
            header = node
        else:
            continue
        if _splits_within(header, names, set()):
            out.update(range(node.lineno, (getattr(header, "end_lineno", None) or node.lineno) + 1))
    return frozenset(out)


def _site(fit: object) -> tuple[object, object, object]:
    """Where a fit was made (its line, column and method): the same site after a helper's fits are carried to its
    callers under new ids."""
    return getattr(fit, "line", None), getattr(fit, "column", None), getattr(fit, "method", None)


class CopySplits:
    """Mixin of the analyzer: the fits that stand for a whole table repeated (``pd.concat([X] * k)``), held to a
    split that parts their copies (see the module docstring). Needs ``tree`` and ``_bindings``."""

    def _note_whole_repeat(self, node: ast.Call, method: str) -> None:
        """The stack ``node`` repeats a whole table (noted before its fit is made: the fit's own site)."""
        self.__dict__.setdefault("_whole_repeats", set()).add((node.lineno, node.col_offset + 1, method))

    def _whole_repeat(self, fit: object) -> bool:
        """``fit`` is a whole table repeated: copies of held-out rows alone are no fit on them (a test table
        repeated for test-time augmentation); only a later split that parts the copies leaks."""
        return _site(fit) in self.__dict__.get("_whole_repeats", ())

    def _copies_kept(self, fit: object, held: object, start: int, line: int) -> bool:
        """``fit`` repeats a whole table and no row-wise split parts its copies on the way to ``held`` (its path's
        steps from ``start``) or on ``line`` (a cross-validation call): nothing to report."""
        if not self._whole_repeat(fit):
            return False
        if "_row_split_lines" not in self.__dict__:
            self._row_split_lines = row_split_lines(self.tree, self._bindings)  # type: ignore[attr-defined]
        if held is not None:  # the steps after the repeat: past the longest path of the copies that holds ``held``
            start = max([start, *(len(q.steps) for q in parts(getattr(fit, "rows", None)) if covers(q, held))])
        lines = {line, *(s.line for s in getattr(held, "steps", ())[start:])}
        return not lines & self._row_split_lines


__all__ = ["ROW_SPLITTERS", "CopySplits", "row_split_lines"]
