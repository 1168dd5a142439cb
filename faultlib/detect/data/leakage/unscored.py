"""Files that evaluate nothing: a ``train_test_split`` alone does not make a fit before it reach a model.

A split says its rows are meant for training and scoring (``semantics._split``), so a statistic or a transformer
fitted on the rows before it normally counts as reaching a model even where the model is out of the analysis'
sight (a PyTorch loop, a helper module). Where the file shows no sign at all of a model being trained, scored or
saved, the split only demonstrates a transformer (``capper.fit(X_train); capper.transform(X_test)`` in a library's
example notebook): the fit before it stays an ``info`` finding, like any fit whose output reaches no model.

One exception: a library transformer (an imputer, an encoder, a scaler object; not a statistic written by hand) fitted
on the rows a split then divides, where the file goes on to use the split's test part (``sc.transform(X_test)``),
is a preprocessing step of a train/test pipeline (a "data preprocessing" template whose model lives in the next
lesson), the pattern of ASE'22's preprocessing leakage; it stays an alarm. A hand-written fill in a loader
(``df.age.fillna(df.age.median())``) or a split whose test part the file never reads again (points thinned for a
plot) stays ``info``.

A split unpacked into names whose test parts the file never reads again (``a_tr, a_te, b_tr, b_te = split(...)``
and no ``a_te``/``b_te`` after it, or only their sizes: ``a_te.shape``, ``len(a_te)``) holds out rows that nothing scores: a demonstration of the split (its shapes
printed) beside other work. A statistic written by hand that only such a split reaches stays ``info`` even where
the file shows signs of evaluation elsewhere (a cleaned table saved for the next lesson): no evaluation in the file
reads the rows the split held out. A library transformer keeps the split's reach as before.

A split none of whose parts, training parts included, is read again (:func:`no_part_read`) is left over: its rows
train and score nothing, so no row was held out from the fit before it, and a ``fit_before_split`` raised at it is
``info`` (:func:`before_dead_split`) even where the fit reaches a model another way (issue 17 wave 91: a spam
detector's vectorizing script split the TF-IDF matrix, dropped both parts and saved the vectorizer for scripts that
use every row).

Signs of evaluation (any one keeps the split's reach): a call of a method or function that predicts or scores
(``predict``, ``score``, ``evaluate``...: :data:`vocab.EVALUATE`, :data:`vocab.MODEL_METHODS`), cross-validates
(:data:`vocab.CV_FUNCTIONS`), saves (:data:`vocab.SAVES`), steps a hand-written training loop (``backward``,
``train``), or computes a metric (a name ending ``_score``/``_error``/``_loss``, or one of :data:`METRICS`:
scikit-learn's ``sklearn.metrics`` API reference, "Classification metrics" and "Regression metrics").
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.handedback import used_after
from faultlib.pyflow.walk import walk_once

#: metric functions whose names do not end in ``_score``/``_error``/``_loss`` (sklearn.metrics; imblearn.metrics)
METRICS = frozenset({"classification_report", "classification_report_imbalanced", "confusion_matrix",
                     "multilabel_confusion_matrix", "roc_curve", "precision_recall_curve", "det_curve",
                     "precision_recall_fscore_support", "mape", "smape", "mae", "mse", "rmse", "auc"})
#: hand-written training loops (PyTorch ``loss.backward()``, ``trainer.train()``, ``lgb.train``/``xgb.train``)
_TRAINING = frozenset({"backward", "train"})
_SUFFIXES = ("_score", "_error", "_loss")
#: attributes that give a table's size, not its values (``print(X_test.shape)`` after a split reads no row)
_SIZE_ATTRIBUTES = frozenset({"shape", "size", "ndim"})
_SIGNS = vocab.EVALUATE | vocab.MODEL_METHODS | vocab.CV_FUNCTIONS | vocab.SAVES | METRICS | _TRAINING


def evaluates_something(tree: ast.AST) -> bool:
    """Whether ``tree`` calls anything that trains, scores, cross-validates or saves (see the module docstring).

    Args:
        tree: the analysed module (a script, or a notebook's code cells joined).

    Returns:
        ``False`` only when no call in ``tree`` is such a sign; calls are matched by their last name
        (``metrics.f1_score``, ``model.predict``), so an unknown object's ``predict`` counts too.
    """
    for node in walk_once(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is not None and (name in _SIGNS or name.endswith(_SUFFIXES)):
            return True
    return False


class SplitReach:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_reach``, ``_reached``,
    ``_pending`` and ``tree``): the fit sites a ``train_test_split`` alone reached, kept apart until the end of the analysis."""

    def _reach_by_split(self, *values: Any, line: int = 0) -> None:
        """``values`` are the rows a ``train_test_split`` on ``line`` divides: they reach a model unless the file
        evaluates nothing (see the module docstring)."""
        before, self._reached = self._reached, set()  # type: ignore[has-type]
        self._reach(*values)  # type: ignore[attr-defined]
        self.__dict__.setdefault("_reached_by_split", set()).update(self._reached)
        if self._reached and test_part_read(self.tree, line):  # type: ignore[attr-defined]
            self.__dict__.setdefault("_reached_by_used_split", set()).update(self._reached)
        unread = test_part_unread(self.tree, line)  # type: ignore[attr-defined]
        self.__dict__.setdefault("_reached_by_unread_split" if unread else "_reached_by_other_split",
                                 set()).update(self._reached)
        self._reached = before

    def _split_reaches(self) -> set[tuple[int, int]]:
        """The fit sites only a split reached, where the file shows a sign of evaluation; else those of library
        transformers whose split's test part the file reads again (see the module docstring)."""
        by_split = self.__dict__.get("_reached_by_split", set())
        if not by_split:
            return set()
        library = {(p["fit"].line, p["fit"].column) for p in self._pending  # type: ignore[attr-defined]
                   if not p["fit"].handwritten}
        if evaluates_something(self.tree):  # type: ignore[attr-defined]
            unread_only = self.__dict__.get("_reached_by_unread_split", set()) - self.__dict__.get(
                "_reached_by_other_split", set()) - library
            return by_split - unread_only
        return self.__dict__.get("_reached_by_used_split", set()) & library


def _unpacked_split(tree: ast.AST, line: int) -> tuple[set[str], int] | None:
    """The test parts' names (every second name) and the last line of the ``train_test_split`` on ``line`` where it
    is unpacked into an even number of plain names; ``None`` otherwise."""
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.lineno == line
                and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List))):
            continue
        names = node.targets[0].elts
        if len(names) < 2 or len(names) % 2 or not all(isinstance(n, ast.Name) for n in names):
            continue
        return {n.id for n in names[1::2]}, node.end_lineno or line  # type: ignore[attr-defined]
    return None


def _loaded_after(tree: ast.AST, names: set[str], end: int, *, size_only_counts: bool = True) -> bool:
    """Whether one of ``names`` is read after line ``end``; with ``size_only_counts=False`` a read of its size only
    (``X_test.shape``, ``len(X_test)``: the split's proportions printed) does not count."""
    sizes: set[int] = set()
    if not size_only_counts:
        for n in walk_once(tree):
            if isinstance(n, ast.Attribute) and n.attr in _SIZE_ATTRIBUTES and isinstance(n.value, ast.Name):
                sizes.add(id(n.value))
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and n.args and \
                    isinstance(n.args[0], ast.Name):
                sizes.add(id(n.args[0]))
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and n.lineno > end
               and id(n) not in sizes for n in walk_once(tree))


def test_part_unread(tree: ast.AST, line: int) -> bool:
    """Whether the ``train_test_split`` on ``line`` is unpacked into plain names and none of its test parts is read
    after it but for its size (``X_test.shape``, ``len(X_test)``); ``False`` where it is not unpacked."""
    split = _unpacked_split(tree, line)
    return split is not None and not _loaded_after(tree, *split, size_only_counts=False)


def no_part_read(tree: ast.AST, line: int) -> bool:
    """Whether the ``train_test_split`` on ``line`` is unpacked into plain names none of which, training parts
    included, is read after it but for its size: a split left over, whose rows train and score nothing."""
    split = _unpacked_split(tree, line)
    if split is None:
        return False
    node = next(n for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                and n.value.lineno == line and isinstance(n.targets[0], (ast.Tuple, ast.List)))
    names = {e.id for e in node.targets[0].elts if isinstance(e, ast.Name)}  # type: ignore[attr-defined]
    return not _loaded_after(tree, names, split[1], size_only_counts=False)


def before_dead_split(kind: str, line: int, tree: ast.AST) -> bool:
    """Whether a finding of ``kind`` raised at the split on ``line`` is set aside (reported at ``info``): a
    ``fit_before_split`` whose split is left over (:func:`no_part_read`), whatever else reached the fit (the fitted
    vectorizer saved for scripts that never hold rows out)."""
    return kind == "fit_before_split" and no_part_read(tree, line)


def test_part_read(tree: ast.AST, line: int) -> bool:
    """Whether the ``train_test_split`` called on ``line`` is unpacked into names (``X_train, X_test, y_train,
    y_test = ...``) and one of its test parts (every second name) is read after that line.

    Args:
        tree: the analysed module.
        line: the line of the split call (1-based, in the analysed source).

    Returns:
        ``False`` where the split's result is not unpacked into plain names on that line, or no test part's name
        is loaded on a later line but to be displayed or returned to callers that drop it (the analysis cannot then
        show the held-out rows are used at all).
    """
    split = _unpacked_split(tree, line)
    return split is not None and used_after(tree, *split)  # not only shown or handed back and dropped (handedback.py)
