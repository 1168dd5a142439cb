"""Pseudo-labels: a model's predictions on the test rows used as the labels of extra training rows, for the static
leakage analysis.

Pseudo-labelling (Lee, "Pseudo-Label: the simple and efficient semi-supervised learning method for deep neural
networks", ICML 2013 workshop) fits a model on every labelled row, predicts the unlabelled (test) rows and appends
the confident ones, with the predicted labels, to the training data. Cross-validating that augmented set scores each
fold's held-out rows with a model trained on pseudo rows whose labels were learnt from those very held-out rows: the
teacher's fit saw them, exactly as a target encoder fitted on all rows before the CV did (Kaufman, Rosset, Perlich,
Stitelman, "Leakage in data mining", TKDD 2012). The teacher's fit is then the leak: ``fit_outside_cv`` at its line.

How: :func:`pseudo_labels` gives the predictions of a supervised model on rows apart from the ones it was fitted on
(test rows) the teacher's fit as a taint, kept in :attr:`PseudoLabels._pseudo_fits`; only a cross-validation whose
**labels** (``y``) hold such predictions, and whose rows the teacher was fitted on, reports it
(:meth:`PseudoLabels._check_pseudo_cv`). Silent: predictions written to a submission or scored (no CV of them),
out-of-fold stacking (the CV runs over the training rows' own labels), a teacher fitted on other rows than the
cross-validated ones.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Est, covers, parts

#: methods whose output has one value (or one row of class scores) per input row
_PER_ROW = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})


def _teacher(est: Est) -> Any:
    model = est if est.category == "model" else next((s for s in est.steps if s.category == "model"), None) \
        if est.category == "pipeline" else None
    return model if model is not None and vocab.role(model.cls) == "model" else None


class PseudoLabels:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    _pseudo_fits: frozenset[int] = frozenset()

    def _pseudo_labels(self, est: Est, method: str, x: Data) -> Data | None:
        """``est.<method>(x)`` on test rows apart from the teacher's: ``x`` carrying the teacher's fit."""
        fit = est.fit
        if method not in _PER_ROW or fit is None or _teacher(est) is None or \
                fit.rows is None or x.rows is None or not x.is_test or any(
                covers(f, p) for f in parts(fit.rows) for p in parts(x.rows)):
            return None
        self._pseudo_fits = self._pseudo_fits | {fit.uid}
        return Data(x.rows, x.taints | {fit}, x.test)

    def _check_pseudo_cv(self, labels: Any, line: int, how: str) -> None:
        """``labels`` are cross-validated: a teacher's predictions among them, the teacher fitted on their rows."""
        y = labels if isinstance(labels, Data) else None
        if y is None or not self._pseudo_fits:
            return
        for fit in y.taints:
            if fit.uid in self._pseudo_fits and any(covers(f, p) for f in parts(fit.rows) for p in parts(y.rows)):
                self._reach(Data(y.rows, frozenset({fit}), y.test))  # type: ignore[attr-defined]  # the CV's labels
                self._emit("fit_outside_cv", fit, line=line, data=y,  # type: ignore[attr-defined]
                           why=f"its predictions label test rows that join the training labels, and {how} on "
                               f"{self.smap.describe(line)} cross-validates them: every fold trains on "  # type: ignore
                               "pseudo-labels learnt from its own held-out rows")


__all__ = ["PseudoLabels"]
