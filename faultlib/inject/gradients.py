"""Gradient faults: make one parameter's gradient explode for a window of steps."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class GradientScale(WindowedInjector):
    """Multiply one parameter's gradient by ``factor`` during backward, for a window of steps.

    Models what a bad batch, a learning-rate spike or an unnormalised input does to one layer:
    its gradient norm jumps by orders of magnitude while the rest of the model is healthy. A
    tensor hook on the parameter (``Tensor.register_hook``) scales the gradient as autograd
    produces it, so the optimizer, the clipping and the detectors see it as real.

    Params:
        parameter (str): dotted name in ``model.named_parameters()``, e.g. ``"0.weight"``.
        factor (float): multiplier, default 1e4.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "gradient_scale"
    summary = "scale one parameter's gradient by a factor for a window of steps"
    params_schema = WindowedInjector.schema(["parameter"], parameter={"type": "string"},
                                            factor={"type": "number", "default": 1e4})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.parameter: str = params["parameter"]
        self.factor = float(params.get("factor", 1e4))

    def apply(self, target: FaultTarget) -> None:
        if target.model is None:
            raise InjectionError("gradient_scale needs a model: call ctx.attach(model) before the first step")
        params = dict(target.model.named_parameters())
        if self.parameter not in params:
            raise InjectionError(f"gradient_scale: no parameter {self.parameter!r}; parameters: {sorted(params)[:20]}")

        def hook(grad):
            if self.active_at(target.step):
                self.hits += 1
                return grad * self.factor
            return None

        self._handle = params[self.parameter].register_hook(hook)
