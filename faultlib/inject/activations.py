"""Activation faults: make a module's output leave the range its dtype can hold."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, Injector


class ActivationScale(Injector):
    """Multiply one module's forward output by ``factor`` for a window of steps.

    Under ``torch.autocast(dtype=torch.float16)`` a Linear's output is fp16, whose
    largest finite value is 65504; a large factor turns it into ``inf`` and the loss
    into NaN, exactly as an activation outlier does in real fp16 training. Placed in
    front of a normalisation layer (LayerNorm is scale invariant), the same step in
    fp32 stays healthy, which is what makes an fp32 fallback a real mitigation.

    Params:
        module (str): dotted name of the target in ``model.named_modules()`` (``""`` = root).
        factor (float): multiplier, default 1e6.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.

    Cost: one Python forward hook on one module; it returns the scaled output only
    inside the window (forward hooks that return a value replace the output).
    """

    name = "activation_scale"
    summary = "scale one module's forward output by a factor for a window of steps"
    params_schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["module", "start_step"],
        "properties": {
            "module": {"type": "string"},
            "factor": {"type": "number", "default": 1e6},
            "start_step": {"type": "integer", "minimum": 0},
            "steps": {"type": "integer", "minimum": 1, "default": 1},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.module_name: str = params["module"]
        self.factor = float(params.get("factor", 1e6))
        self.start_step = int(params["start_step"])
        self.stop_step = self.start_step + int(params.get("steps", 1))
        self._handle = None
        self.hits = 0

    def active_at(self, step: int | None) -> bool:
        return step is not None and self.start_step <= step < self.stop_step

    def apply(self, target: FaultTarget) -> None:
        if target.model is None:
            raise InjectionError("activation_scale needs a model: call ctx.attach(model) before the first step")
        try:
            module = target.model.get_submodule(self.module_name)
        except AttributeError as exc:
            names = [n for n, _ in target.model.named_modules() if n][:20]
            raise InjectionError(
                f"activation_scale: no module {self.module_name!r} in the model; modules: {names}") from exc

        def hook(_module, _inputs, output):
            if self.active_at(target.step):
                self.hits += 1
                return output * self.factor
            return None

        self._handle = module.register_forward_hook(hook)

    def revert(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
