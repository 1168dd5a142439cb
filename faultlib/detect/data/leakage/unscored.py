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

#: metric functions whose names do not end in ``_score``/``_error``/``_loss`` (sklearn.metrics; imblearn.metrics)
METRICS = frozenset({"classification_report", "classification_report_imbalanced", "confusion_matrix",
                     "multilabel_confusion_matrix", "roc_curve", "precision_recall_curve", "det_curve",
                     "precision_recall_fscore_support", "mape", "smape", "mae", "mse", "rmse", "auc"})
#: hand-written training loops (PyTorch ``loss.backward()``, ``trainer.train()``, ``lgb.train``/``xgb.train``)
_TRAINING = frozenset({"backward", "train"})
_SUFFIXES = ("_score", "_error", "_loss")
_SIGNS = vocab.EVALUATE | vocab.MODEL_METHODS | vocab.CV_FUNCTIONS | vocab.SAVES | METRICS | _TRAINING


def evaluates_something(tree: ast.AST) -> bool:
    """Whether ``tree`` calls anything that trains, scores, cross-validates or saves (see the module docstring).

    Args:
        tree: the analysed module (a script, or a notebook's code cells joined).

    Returns:
        ``False`` only when no call in ``tree`` is such a sign; calls are matched by their last name
        (``metrics.f1_score``, ``model.predict``), so an unknown object's ``predict`` counts too.
    """
    for node in ast.walk(tree):
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
        self._reached = before

    def _split_reaches(self) -> set[tuple[int, int]]:
        """The fit sites only a split reached, where the file shows a sign of evaluation; else those of library
        transformers whose split's test part the file reads again (see the module docstring)."""
        by_split = self.__dict__.get("_reached_by_split", set())
        if not by_split:
            return set()
        if evaluates_something(self.tree):  # type: ignore[attr-defined]
            return by_split
        library = {(p["fit"].line, p["fit"].column) for p in self._pending  # type: ignore[attr-defined]
                   if not p["fit"].handwritten}
        return self.__dict__.get("_reached_by_used_split", set()) & library


def test_part_read(tree: ast.AST, line: int) -> bool:
    """Whether the ``train_test_split`` called on ``line`` is unpacked into names (``X_train, X_test, y_train,
    y_test = ...``) and one of its test parts (every second name) is read after that line.

    Args:
        tree: the analysed module.
        line: the line of the split call (1-based, in the analysed source).

    Returns:
        ``False`` where the split's result is not unpacked into plain names on that line, or no test part's name
        is loaded on a later line (the analysis cannot then show the held-out rows are used at all).
    """
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.lineno == line
                and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List))):
            continue
        names = node.targets[0].elts
        if len(names) < 2 or len(names) % 2 or not all(isinstance(n, ast.Name) for n in names):
            continue
        held = {n.id for n in names[1::2]}  # type: ignore[attr-defined]
        end = node.end_lineno or line
        return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in held and n.lineno > end
                   for n in ast.walk(tree))
    return False
