"""Estimators known by how the script uses them, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_fit`` from ``semantics``). Two rules:

* **a class of an estimator library that the table does not know** (``vocab.is_library_estimator``: a class of
  scikit-learn, imbalanced-learn, category_encoders, feature-engine... newer than
  :mod:`faultlib.detect.data.leakage.estimators`) starts as a model, as before; the first ``fit_transform`` or
  ``transform`` on it makes it a transformer whose fit learns from the rows (the scikit-learn estimator contract:
  "fit ... learns from the data", ``transform`` applies what it learnt), reading ``y`` when its fit was given
  one; ``fit_resample`` makes it an imbalanced-learn sampler. A ``predict``/``score`` keeps it a model;
* **outlier detectors dropping rows** (scikit-learn ``OutlierMixin``: ``IsolationForest``, ``LocalOutlierFactor``,
  ``EllipticEnvelope``, ``OneClassSVM``, ``SGDOneClassSVM``): ``fit_predict(X)`` (or ``predict(X)`` on the rows it
  was fitted on) gives inlier flags (``1``/``-1``) learnt from those rows. Used as a row mask
  (``X[iso.fit_predict(X) == 1]``), the rows kept were chosen by a fit of every row: the same policy as a row
  filter at statistics of the rows (:mod:`.outliers`, owner's decision, stop 34), so fitted before the split,
  the fences saw the held-out rows. The flags carry the detector's fit; a comparison of them is a mask whose
  fit goes to the rows it selects (``Analyzer._compare``). Scored as a model on held-out rows (a detector fitted
  on the training rows, ``predict(X_test)``), it stays a model.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Est, parts
from faultlib.pyflow.values import Ref, Tup

#: Keras model constructors that take their layers as a list (keras.io, "The Sequential class")
_LAYER_LISTS = frozenset({"Sequential"})
#: an outlier detector's answers about the rows it was fitted on: inlier flags, or the scores they are cut from
#: (scikit-learn ``OneClassSVM.decision_function``: "signed distance to the separating hyperplane", positive for an
#: inlier; ``score_samples``: "raw scoring function of the samples")
_FLAGS = frozenset({"fit_predict", "predict", "decision_function", "score_samples"})


class ByUse:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        if ref.last in _LAYER_LISTS:
            layers = [i for a in [*args, *kwargs.values()] for i in (a.items if isinstance(a, Tup) else [a])]
            self._reach(*(e for e in layers if isinstance(e, Est) and e.preprocessing))  # type: ignore[attr-defined]
        return super()._library(ref, args, kwargs, node, frame)  # type: ignore[misc]

    def _by_use(self, est: Est, method: str, has_y: bool, x: Data | None, node: ast.Call,
                frame: Any) -> tuple[str, Any]:
        """What ``est.method(...)`` means by these rules: (the method it stands for, the inlier flags of an outlier
        detector or ``None`` when the caller's rules apply)."""
        if est.category == "transformer" and method in vocab.ADAPT:
            method = vocab.ADAPT[method]  # layers.Normalization().adapt(X): the layer's mean and variance from X
        if est.options.get("by_use") and est.category == "model":
            self._used_as(est, method, has_y)  # an unknown library class: a transformer if used as one
        if est.cls in vocab.CV_SELECTORS and (method == vocab.FIT or method in vocab.FIT_TRANSFORM) and x is not None:
            self._reach(x)  # type: ignore[attr-defined]  # its cross-validation scores a model on these rows
            self._check_cv(x, node.lineno, f"{est.cls}.{method}()")  # type: ignore[attr-defined]
        if est.cls in vocab.OUTLIER_DETECTORS and method in _FLAGS and x is not None:
            return method, self._outlier_flags(est, method, x, node, frame)  # iso.fit_predict(X) == 1 drops rows
        return method, None

    def _used_as(self, est: Est, method: str, has_y: bool) -> None:
        """``est`` is an unknown library class called with ``method``: a transformer or sampler from now on when the
        method is one, a model for good when it predicts."""
        if method in vocab.FIT_TRANSFORM or method in vocab.TRANSFORM or method in vocab.FIT_RESAMPLE:
            est.category = "transformer"
            est.preprocessing = True
            est.supervised = method in vocab.FIT_RESAMPLE or has_y and method in vocab.FIT_TRANSFORM or bool(
                est.fit is not None and est.fit.supervised)
            est.options.pop("by_use", None)
        elif method in vocab.EVALUATE:
            est.options.pop("by_use", None)

    def _outlier_flags(self, est: Est, method: str, x: Data, node: ast.Call, frame: Any) -> Any:
        """The inlier flags of outlier detector ``est`` on ``x`` (:class:`Data` with its fit), or ``None`` when
        ``predict`` scores rows other than those it was fitted on (a model scored: the caller's rule)."""
        if method == "fit_predict":
            est.preprocessing = True  # its flags choose rows: a fit of the rows it saw
            fit = self._fit(est, x, False, method, node, frame)  # type: ignore[attr-defined]
        elif est.fit is not None and est.fit.rows is not None and parts(est.fit.rows) == parts(x.rows):
            est.preprocessing = True
            fit = est.fit
        else:
            return None
        return Data(x.rows, x.taints | ({fit} if fit is not None else set()), x.test)


def detector_choice(index: Any) -> frozenset:
    """The outlier detectors' fits an index array of positions carries (``np.argsort(-svm.decision_function(X))[:k]``,
    the ``k`` rows the detector finds most typical): rows kept by a detector's scores of them, chosen by a fit of
    those rows as a mask of its flags is (empty for any other index)."""
    data = index if isinstance(index, Data) else None
    return frozenset(f for f in data.taints if is_detector_fit(f)) if data is not None else frozenset()


def is_detector_fit(fit: Any) -> bool:
    """A fit of an outlier detector (its flags make a row mask, never a feature)."""
    return getattr(fit, "estimator", None) in vocab.OUTLIER_DETECTORS and not getattr(fit, "handwritten", False)


__all__ = ["ByUse", "detector_choice", "is_detector_fit"]
