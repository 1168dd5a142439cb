"""Data faults: the inputs a served model sees move away from the data it was trained on."""

from __future__ import annotations

from typing import Any

from faultlib.inject.activations import _submodule
from faultlib.inject.base import FaultTarget, WindowedInjector


class FeatureShift(WindowedInjector):
    """Rescale and offset some input features of a module for a window of steps: ``x[:, c] * scale + offset``.

    This is covariate shift as an upstream change produces it: a sensor or imaging device recalibrated
    (a magnification that makes every length 25 % larger and every area 56 % larger), a unit change
    (mm to cm), a feature pipeline that starts to log-transform. The model, its weights and the
    labels' meaning are unchanged; only the inputs move. Implemented as a forward pre-hook on the
    module, which therefore receives the shifted batch exactly as if the data held it; anything that
    observes the module's input through a hook registered later (a drift monitor) sees it too.

    Params:
        columns (list[int]): indices along the input's last dimension to shift (at least one, unique).
        scale (float): multiplier, default 1.0.
        offset (float): added after scaling, default 0.0.
        module (str): dotted name of the module whose input is shifted (``""`` = the model), default ``""``.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.

    Cost: one Python pre-hook; inside the window one clone of the batch and one multiply-add on the
    shifted columns.
    """

    name = "feature_shift"
    summary = "rescale/offset some input features of a module for a window of steps (covariate shift)"
    params_schema = WindowedInjector.schema(
        ["columns"], columns={"type": "array", "minItems": 1, "uniqueItems": True,
                              "items": {"type": "integer", "minimum": 0}},
        scale={"type": "number", "default": 1.0}, offset={"type": "number", "default": 0.0},
        module={"type": "string", "default": ""})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.columns = [int(c) for c in params["columns"]]
        self.scale = float(params.get("scale", 1.0))
        self.offset = float(params.get("offset", 0.0))
        self.module_name: str = params.get("module", "")

    def apply(self, target: FaultTarget) -> None:
        module = _submodule(target, self.name, self.module_name)
        width = max(self.columns) + 1

        def pre_hook(_module, args):
            if not self.active_at(target.step) or not args:
                return None
            x = args[0]
            if x.shape[-1] < width:
                from faultlib.errors import InjectionError

                raise InjectionError(f"{self.name}: column {width - 1} asked for, but the input of module "
                                     f"{self.module_name or '(model)'} has {x.shape[-1]} features")
            self.hits += 1
            shifted = x.clone()
            shifted[..., self.columns] = x[..., self.columns] * self.scale + self.offset
            return (shifted, *args[1:])

        self._handle = module.register_forward_pre_hook(pre_hook)
