"""Files that evaluate nothing: a ``train_test_split`` alone does not make a fit before it reach a model.

A split says its rows are meant for training and scoring (``semantics._split``), so a statistic or a transformer
fitted on the rows before it normally counts as reaching a model even where the model is out of the analysis'
sight (a PyTorch loop, a helper module). Where the file shows no sign at all of a model being trained, scored or
saved, the split only demonstrates a transformer (``capper.fit(X_train); capper.transform(X_test)`` in a library's
example notebook): the fit before it stays an ``info`` finding, like any fit whose output reaches no model.

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
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_reach``, ``_reached`` and
    ``tree``): the fit sites a ``train_test_split`` alone reached, kept apart until the end of the analysis."""

    def _reach_by_split(self, *values: Any) -> None:
        """``values`` are the rows a ``train_test_split`` divides: they reach a model unless the file evaluates
        nothing (see the module docstring)."""
        before, self._reached = self._reached, set()  # type: ignore[has-type]
        self._reach(*values)  # type: ignore[attr-defined]
        self.__dict__.setdefault("_reached_by_split", set()).update(self._reached)
        self._reached = before

    def _split_reaches(self) -> set[tuple[int, int]]:
        """The fit sites only a split reached, where the file shows a sign of evaluation; else none."""
        by_split = self.__dict__.get("_reached_by_split", set())
        return by_split if by_split and evaluates_something(self.tree) else set()  # type: ignore[attr-defined]
