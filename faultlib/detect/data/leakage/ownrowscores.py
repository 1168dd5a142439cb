"""A novelty detector fitted on the rows of one class, scored on rows that hold them, for the static leakage
analysis.

A script that never holds a row out trains an anomaly detector on the rows its label marks normal and scores it on
every row of the same table, those rows included::

    normal = flows[flows["label"] == 0]
    forest = IsolationForest().fit(normal[features])
    print(f1_score(flows["label"], forest.predict(flows[features]) == -1))

The normal rows of the score were the detector's training rows: a novelty detector learns the region of its
training rows and calls them inliers (scikit-learn user guide 2.7, "Novelty and Outlier Detection": novelty
detection fits on "training data [that] is not polluted by outliers" and decides whether *a new observation* is an
outlier), so their share of true negatives is a training score, optimistic as any resubstitution score is (Hastie,
Tibshirani & Friedman, "The Elements of Statistical Learning", 2nd ed., section 7.2). Issue 17's house labels it
``trained_on_test`` at the detector's fit (wave 105: an isolation forest fitted on the normal rows of the training
file and scored on every row of that file).

Reported when all of these hold:

* the model is fitted on rows a mask of the label against a constant chose (one class: the ``class`` rows of
  :mod:`.classfilters`) and predicts or scores rows that hold every one of them (the table they were cut from);
* the prediction goes into a metric (``*_score``/``*_error``/``*_loss``, ``classification_report``,
  ``confusion_matrix``..., or the model's own ``score``) in that function, directly or through the name it is
  assigned to;
* the program holds nothing out at all: no split, no cross-validation, no splitter, and no prediction on rows
  named or split off for testing. With any of those, the held-out score is the result.

Left alone: a model fitted and scored on the same rows without a class filter (a teaching notebook's in-sample
fit, a trend line's R²): issue 17's house has left those unlabelled in the corpus so far.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.foldbodies import enclosing_function
from faultlib.detect.data.leakage.scoring import predicts
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.unscored import METRICS
from faultlib.detect.data.leakage.values import Data, Est, FitRef, as_data, covers, parts
from faultlib.pyflow.walk import walk_once

#: metric names beyond ``*_score``/``*_error``/``*_loss`` and :data:`.unscored.METRICS` (a hand-written helper)
_WORDS = frozenset({"accuracy", "precision", "recall", "f1"})
_SUFFIXES = ("_score", "_error", "_loss")
#: calls that hold rows out (a split, a splitter, a cross-validation)
_HOLD_OUT = vocab.SPLIT_FUNCTIONS | vocab.CV_FUNCTIONS | vocab.SPLITTERS | {"random_split"}


@dataclass(frozen=True)
class _Scored:
    fit: FitRef
    data: Data
    line: int


def _metric_name(name: str) -> bool:
    return name.endswith(_SUFFIXES) or name in METRICS or name.lower() in _WORDS


def _holds_out(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and call_name(n) in _HOLD_OUT for n in walk_once(tree))


def _arguments(call: ast.Call) -> list[ast.AST]:
    return [a for arg in [*call.args, *(k.value for k in call.keywords)] for a in ast.walk(arg)]


def _into_metric(scope: ast.AST, call: ast.Call) -> bool:
    """The value of ``call`` is measured by a metric in ``scope``: the call is inside a metric's arguments, or it is
    assigned to names a later metric call reads."""
    names: set[str] = set()
    metrics = [n for n in walk_once(scope) if isinstance(n, ast.Call) and _metric_name(call_name(n))]
    if any(a is call for m in metrics for a in _arguments(m)):
        return True
    for node in walk_once(scope):
        if isinstance(node, ast.Assign) and any(a is call for a in ast.walk(node.value)):
            names |= {t.id for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Name)}
    return any(m.lineno >= call.lineno and any(isinstance(a, ast.Name) and a.id in names for a in _arguments(m))
               for m in metrics)


def _one_class_of(fit: FitRef, x: Data) -> bool:
    """``x`` holds every row ``fit`` saw, and the fit's rows are one class of them (see the module docstring)."""
    fitted, held = parts(fit.rows), parts(x.rows)
    return bool(fitted) and bool(held) and all(any(
        covers(h, f) and any(s.kind == "filter" and s.part == "class" for s in f.steps[len(h.steps):])
        for h in held) for f in fitted)


class OwnRowScores:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``tree``, ``_emit``, ``_reached``
    and ``smap``): see the module docstring."""

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        out = super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        fit = est.fit if isinstance(est, Est) else None
        if name in vocab.EVALUATE and fit is not None and predicts(est):
            x = as_data(args[0] if args else vocab.model_input(kwargs))
            if x is not None and x.is_test:
                self.__dict__["_scored_held_out"] = True
            elif x is not None and _one_class_of(fit, x):
                tree = self.tree  # type: ignore[attr-defined]
                if _into_metric(enclosing_function(tree, node.lineno) or tree, node):
                    self.__dict__.setdefault("_own_row_scores", []).append(_Scored(fit, x, node.lineno))
        return out

    def _own_row_findings(self) -> None:
        """Emit the scores :meth:`_estimator` kept where the program held nothing out (called before
        ``_finalize``)."""
        scored = self.__dict__.get("_own_row_scores", [])
        if not scored or self.__dict__.get("_scored_held_out") or _holds_out(self.tree):  # type: ignore[attr-defined]
            return
        for s in scored:
            self._reached.add((s.fit.line, s.fit.column))  # type: ignore[attr-defined]
            where = self.smap.describe(s.line)  # type: ignore[attr-defined]
            self._emit("trained_on_test", s.fit, line=s.line, data=s.data,  # type: ignore[attr-defined]
                       why=f"its predictions on {where} are scored on every row of the table that class was cut "
                           "from, its own training rows among them, and the program holds no row out: the "
                           "reported score is partly a training score")


__all__ = ["OwnRowScores"]
