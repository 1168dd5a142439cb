"""A supervised model's predictions on the rows it was fitted on, kept as a feature, for the static leakage analysis.

``knn.fit(loans[cols], loans['outcome'])`` then ``loans['risk'] = knn.predict_proba(loans[cols])[:, 0]``: every row's
``risk`` was computed by a model that saw that row's own label (an in-sample prediction; a 20-neighbour vote that
includes the row itself). Used as a column of a model that a later split or cross-validation of the same rows
scores, the held-out rows' labels shaped their own feature: the model's fit is the leak, exactly as a target
encoder fitted on all rows is (Kaufman, Rosset, Perlich, Stitelman, "Leakage in data mining", TKDD 2012;
stacking without out-of-fold predictions: Wolpert, "Stacked generalization", 1992, and scikit-learn's
``StackingClassifier``, which fits its final estimator on ``cross_val_predict`` output for that reason). The
prediction then carries the fit, as a transformer's output does.

Silent: predictions on rows apart from the fit's (a test part, another fold, new data: the usual use), out-of-fold
predictions (``cross_val_predict``), an unsupervised model's labels (clusterings: their own rule), and in-sample
predictions that only reach a metric or a plot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Est, FitRef
from faultlib.pyflow.values import UNKNOWN

#: methods whose output has one value (or one row of class scores) per input row
_PER_ROW = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})


def in_sample(est: Est, method: str, x: Data, overlaps: Callable[[FitRef, Data], bool]) -> Any:
    """The value of ``est.<method>(x)``: ``x`` carrying ``est``'s fit when ``est`` is a supervised model fitted on
    rows that cover ``x``'s (an in-sample prediction); otherwise unknown (a prediction the analysis does not
    follow)."""
    fit = est.fit
    model = est if est.category == "model" else next((s for s in est.steps if s.category == "model"), None) \
        if est.category == "pipeline" else None
    if method not in _PER_ROW or fit is None or model is None or vocab.role(model.cls) != "model" or \
            fit.rows is None or x.rows is None or not overlaps(fit, x):
        return UNKNOWN  # (role ``model``: a classifier or regressor, fitted with y; not an outlier detector)
    return Data(x.rows, x.taints | {fit}, x.test)


__all__ = ["in_sample"]
