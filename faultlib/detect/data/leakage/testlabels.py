"""A model trained on the test table with the test table's own labels, for the static leakage analysis.

A learning-to-rank script reads a train, a validation and a test file, then fits on the wrong one::

    TrainX, Trainy, Trainqids, _ = read_dataset(trainfile)
    TestX, Testy, Testqids, _ = read_dataset(testfile)
    model.fit(TestX, Testy, Testqids, monitor=monitor)
    print(metric.calc_mean(Testqids, Testy, model.predict(TestX)))

(a recommender recipe of a machine-learning cookbook, wave 60). The model is scored on the very rows, with the very
labels, it was trained on: the ASE'22 paper's *overlap leakage* (Yang et al., "Data leakage in notebooks: static
detection and better processes", ASE 2022), reported as ``trained_on_test``.

:meth:`~faultlib.detect.data.leakage.scoring.ScoringChecks._check_trained_on` leaves a whole table named for testing
out on purpose: in a Kaggle script the competition's test file has no labels, so a fit on rows stacked with it (train
and test concatenated, for an encoder or a clusterer) learns no answer from them. A *supervised* fit on that table
alone is the exception: labels for exactly those rows were given (``Testy`` beside ``TestX``, ``test['y']``), so the
table is labelled and the model learnt its answers. Such a fit (every part of its ``X`` a whole table named for
testing, no split or filter applied) is reported when the model then scores those rows.

The same holds for the held-aside part of a second split: splitting rows that are already a training part makes a
*validation* part (semantics.py), which :meth:`_check_trained_on` does not treat as the test set. A model fitted with
labels on exactly that part and then scoring exactly those rows (``GridSearchCV(...).fit(x_test, y_test)`` then
``accuracy_score(y_test, grid.predict(x_test))`` after oversampled training rows were split again, wave 78) reports
its score on its own training rows as a held-out score: reported too.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Est, FitRef, covers, parts


def _held_aside(rows: Any) -> bool:
    """``rows`` are exactly the held-aside (validation or test) part of a split, nothing selected after it."""
    steps = getattr(rows, "steps", ())
    return bool(steps) and steps[-1].kind == "split" and steps[-1].part in ("val", "test")


class TestTrainedModels:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        out = super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        if name == vocab.FIT and isinstance(est, Est) and est.fit is not None and (len(args) > 1 or "y" in kwargs):
            if not hasattr(self, "_labelled_fits"):
                self._labelled_fits: set[int] = set()
            self._labelled_fits.add(est.fit.uid)  # fit(X, y): labels were given for the rows of X
        return out

    def _check_trained_on(self, fit: FitRef, x: Data, line: int, how: str) -> None:
        super()._check_trained_on(fit, x, line, how)  # type: ignore[misc]
        fitted = parts(fit.rows)
        if fit.uid not in getattr(self, "_labelled_fits", ()) or not fitted:
            return
        if not x.is_test and len(fitted) == 1 and _held_aside(fitted[0]) and parts(x.rows) == fitted:
            self._trained_on_labelled(fit, x, line, f"held-aside rows {fitted[0].describe()} with their labels", how)
            return
        if not x.is_test or not all(f.root.test and not f.steps for f in fitted):
            return
        for f in fitted:
            p = next((p for p in parts(x.rows) if covers(f, p)), None)
            if p is not None:
                self._trained_on_labelled(fit, x, line, f"held-out table {p.describe()} with labels for those rows",
                                          how)
                return

    def _trained_on_labelled(self, fit: FitRef, x: Data, line: int, rows: str, how: str) -> None:
        self._reached.add((fit.line, fit.column))  # type: ignore[attr-defined]
        self._emit("trained_on_test", fit, line=line, data=x,  # type: ignore[attr-defined]
                   why=f"it was trained on the {rows}, and {how} on {self.smap.describe(line)} "  # type: ignore
                       "then scores them: the score is measured on rows the model was trained on")


__all__ = ["TestTrainedModels"]
