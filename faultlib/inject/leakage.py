"""Leakage faults: fit a Pipeline's preprocessing once on all rows, outside the cross-validation."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class HoistPreprocessing(WindowedInjector):
    """Hoist a Pipeline's leading preprocessing steps out of the cross-validation, for a window of steps.

    The classic leak (Hastie, Tibshirani & Friedman, ESL 7.10.2; Ambroise & McLachlan 2002): the
    feature selector (or scaler) is fitted once on every row and label, and only the rest of the
    pipeline is cross-validated on the transformed rows. At each step inside the window the shim
    clones the named steps, fits them on the attached experiment's whole ``X``/``y``, replaces
    ``X`` by their output and those steps by ``"passthrough"`` in the pipeline; outside the window
    the experiment gets its original ``X`` and pipeline back. Clones of steps wrapped by a
    :class:`faultlib.detect.data.leakage.LeakageMonitor` record into the same monitor, so the runtime
    detector sees the hoisted fit as it would see the user's.

    The attached object must hold the pipeline and the data as attributes (see Params).

    Params:
        pipeline (str): attribute holding the scikit-learn Pipeline (or a ``Monitored`` Pipeline), default ``pipeline``.
        data (str): attribute holding ``X``, default ``X``.
        labels (str): attribute holding ``y``, default ``y``.
        hoist (list[str]): names of the leading steps to hoist, default every step but the last.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "hoist_preprocessing"
    summary = "fit a Pipeline's preprocessing on all rows and labels before cross-validation for a window of steps"
    params_schema = WindowedInjector.schema(
        [], pipeline={"type": "string", "default": "pipeline"}, data={"type": "string", "default": "X"},
        labels={"type": "string", "default": "y"},
        hoist={"type": "array", "items": {"type": "string"}, "minItems": 1})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.pipeline_attr: str = params.get("pipeline", "pipeline")
        self.data_attr: str = params.get("data", "X")
        self.labels_attr: str = params.get("labels", "y")
        self.hoist: list[str] | None = params.get("hoist")
        self._owner: Any = None
        self._original: tuple[Any, Any] | None = None
        self.hoisted: list[str] = []

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        for attr in (self.pipeline_attr, self.data_attr, self.labels_attr):
            if owner is None or not hasattr(owner, attr):
                raise InjectionError(f"hoist_preprocessing needs the attached object to have {attr!r} "
                                     f"(attributes {self.pipeline_attr!r}, {self.data_attr!r}, {self.labels_attr!r})")
        pipeline = getattr(owner, self.pipeline_attr)
        wrapped = getattr(pipeline, "estimator", None)  # a wrapper (Monitored) around the Pipeline
        inner, prefix = (wrapped, "estimator__") if hasattr(wrapped, "steps") else (pipeline, "")
        if not hasattr(inner, "steps"):
            raise InjectionError(f"hoist_preprocessing: {self.pipeline_attr!r} is not a scikit-learn Pipeline")
        names = [n for n, _ in inner.steps]
        hoist = self.hoist or names[:-1]
        if names[:len(hoist)] != list(hoist) or len(hoist) >= len(names):
            raise InjectionError(f"hoist_preprocessing: hoist {hoist} must be leading steps of {names}, "
                                 "leaving the final estimator")
        self._owner = owner
        self._original = (pipeline, getattr(owner, self.data_attr))
        self.hoisted = list(hoist)
        steps = dict(inner.steps)

        def reached(_point: str, attributes: dict[str, Any]) -> None:
            from sklearn.base import clone

            original_pipeline, original_x = self._original
            if not self.active_at(attributes.get("step")):
                setattr(owner, self.pipeline_attr, original_pipeline)
                setattr(owner, self.data_attr, original_x)
                return
            x, y = original_x, getattr(owner, self.labels_attr)
            for name in hoist:  # fitted once, on every row and label
                x = clone(steps[name]).fit_transform(x, y)
            rest = clone(original_pipeline).set_params(**{f"{prefix}{n}": "passthrough" for n in hoist})
            setattr(owner, self.pipeline_attr, rest)
            setattr(owner, self.data_attr, x)
            self.hits += 1
            if self.hits == 1:
                target.record_fault(self.name, step=attributes.get("step"), hoisted=",".join(hoist),
                                    rows=int(getattr(x, "shape", (len(x),))[0]))

        target.subscribe("step", reached)

    def revert(self) -> None:
        if self._owner is not None and self._original is not None:
            setattr(self._owner, self.pipeline_attr, self._original[0])
            setattr(self._owner, self.data_attr, self._original[1])
        self._owner = None
