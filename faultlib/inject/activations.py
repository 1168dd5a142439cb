"""Activation faults: make a module's output leave the range its dtype can hold."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class ActivationScale(WindowedInjector):
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
    params_schema = WindowedInjector.schema(["module"], module={"type": "string"},
                                            factor={"type": "number", "default": 1e6})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.module_name: str = params["module"]
        self.factor = float(params.get("factor", 1e6))

    def apply(self, target: FaultTarget) -> None:
        module = _submodule(target, self.name, self.module_name)

        def hook(_module, _inputs, output):
            if self.active_at(target.step):
                self.hits += 1
                return output * self.factor
            return None

        self._handle = module.register_forward_hook(hook)


class BlankInputs(WindowedInjector):
    """Replace the first ``rows`` samples of a module's input batch with zeros for a window of steps.

    A blank sample (an empty scan, an all-zero feature vector, a padding row) is harmless to
    most layers but sends ``sqrt``/``norm`` to exactly zero, whose derivative is infinite: the
    classic NaN born in backward behind a finite forward. Implemented as a forward pre-hook on
    the module, so the module sees the blank rows exactly as if the data held them.

    Params:
        module (str): dotted name of the module whose input is blanked (``""`` = the model itself).
        rows (int): samples to blank, from the start of the batch, default 1.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "blank_inputs"
    summary = "zero the first rows of a module's input batch for a window of steps"
    params_schema = WindowedInjector.schema(["module"], module={"type": "string"},
                                            rows={"type": "integer", "minimum": 1, "default": 1})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.module_name: str = params["module"]
        self.rows = int(params.get("rows", 1))

    def apply(self, target: FaultTarget) -> None:
        module = _submodule(target, self.name, self.module_name)

        def pre_hook(_module, args):
            if not self.active_at(target.step) or not args:
                return None
            self.hits += 1
            blanked = args[0].clone()
            blanked[: self.rows] = 0
            return (blanked, *args[1:])

        self._handle = module.register_forward_pre_hook(pre_hook)


def _submodule(target: FaultTarget, shim: str, name: str):
    """``target.model.get_submodule(name)`` with errors that list the modules there are."""
    if target.model is None:
        raise InjectionError(f"{shim} needs a model: call ctx.attach(model) before the first step")
    try:
        return target.model.get_submodule(name)
    except AttributeError as exc:
        names = [n for n, _ in target.model.named_modules() if n][:20]
        raise InjectionError(f"{shim}: no module {name!r} in the model; modules: {names}") from exc
