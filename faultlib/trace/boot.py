"""Child side of ``faultlib trace``: install the checks, run the script with ``runpy``, write
what was found to ``FAULTLIB_TRACE_RESULT`` (JSON). Usage: ``python -m faultlib.trace.boot SCRIPT ARGS...``.

Environment: ``FAULTLIB_TRACE_RESULT`` (path, required), ``FAULTLIB_TRACE_ARM_AT`` (outermost
forward index from which to check every op; unset = watch pass), ``FAULTLIB_TRACE_CONTINUE``
(``1``: count instead of stopping), ``FAULTLIB_TRACE_DUMP`` (path of the dump to write).
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import weakref
from typing import Any

from faultlib.detect.nan_locator import ModuleStack, NonFiniteEvent, NonFiniteFound, NonFiniteLocator, write_dump
from faultlib.detect.sentinel import GradientSentinel


class _Tripped(BaseException):
    """Stops the watch pass at the first cheap trip."""


class Tracer:
    """The global hooks of one pass (see :mod:`faultlib.trace`)."""

    def __init__(self, *, arm_at: int | None, keep_going: bool, dump_path: str | None):
        import torch

        self.torch = torch
        self.arm_at = arm_at
        self.keep_going = keep_going
        self.dump_path = dump_path
        self.optimizers: weakref.WeakSet = weakref.WeakSet()
        self.sentinels: dict[int, GradientSentinel] = {}
        self.opt_steps = 0
        self.step_first_forward: int | None = None  # outermost-forward index that began the current step
        self.trip: dict[str, Any] | None = None
        self.tripped_steps: set[int] = set()
        self.locator: NonFiniteLocator | None = None
        self.batch: list[Any] = []
        self.loss = None
        self.modules = ModuleStack(on_root_forward=self._root_forward, on_root_output=self._root_output)

    # -- clock ------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        """Optimizer steps completed; in a script with no optimizer, outermost forwards completed."""
        if len(self.optimizers) or self.opt_steps:
            return self.opt_steps
        return max(self.modules.forward_count - 1, 0)

    def install(self) -> None:
        torch = self.torch
        self.modules.install()
        tracer = self
        original_init = torch.optim.Optimizer.__init__

        def init(opt, *args, **kwargs):
            original_init(opt, *args, **kwargs)
            tracer.optimizers.add(opt)

        torch.optim.Optimizer.__init__ = init
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        register_optimizer_step_pre_hook(self._before_step)
        register_optimizer_step_post_hook(self._after_step)
        original_backward = torch.Tensor.backward

        def backward(tensor, *args, **kwargs):
            tracer._before_backward(tensor)
            return original_backward(tensor, *args, **kwargs)

        torch.Tensor.backward = backward

    # -- hooks ------------------------------------------------------------------------------
    def _root_forward(self, module, args) -> None:
        index = self.modules.forward_count - 1
        if self.step_first_forward is None or not (len(self.optimizers) or self.opt_steps):
            self.step_first_forward = index  # without an optimizer, each outermost forward is a step
        if self.arm_at is not None and index >= self.arm_at:
            if self.locator is None:
                self.locator = NonFiniteLocator(modules=self.modules, step=lambda: self.step, stop=True)
                self.locator.__enter__()
            self.batch.append(args)

    def _root_output(self, module, output) -> None:
        torch = self.torch
        tensors = [output] if isinstance(output, torch.Tensor) else [
            t for t in torch.utils._pytree.tree_leaves(output) if isinstance(t, torch.Tensor)]
        for t in tensors:
            if t.is_floating_point() and not bool(torch.isfinite(t).all()):
                self._cheap_trip("forward", self.modules.name_of(module), "output of the outermost module")
                return

    def _before_backward(self, tensor) -> None:
        self.loss = tensor
        if tensor.is_floating_point() and not bool(self.torch.isfinite(tensor).all()):
            self._cheap_trip("forward", None, "the tensor backward() was called on")

    def _before_step(self, optimizer, args, kwargs) -> None:
        """The gradient sentinel over this optimizer's parameters (named from the modules seen)."""
        if not any(p.grad is not None for group in optimizer.param_groups for p in group["params"]):
            return
        sentinel = self.sentinels.get(id(optimizer))
        if sentinel is None:
            names = {id(p): n for root in self.modules.roots.values() for n, p in root.named_parameters()}
            params = [(names.get(id(p), f"param{i}"), p)
                      for i, p in enumerate(p for group in optimizer.param_groups for p in group["params"])]
            sentinel = self.sentinels[id(optimizer)] = GradientSentinel(params)
        check = sentinel.check(self.step)
        if check.overflow:
            finding = check.finding()
            self._cheap_trip("backward", finding.location.get("module"), "gradients at optimizer.step()")

    def _after_step(self, optimizer, args, kwargs) -> None:
        self.opt_steps += 1
        self.step_first_forward = None
        self.batch = []

    def _cheap_trip(self, phase: str, module: str | None, where: str) -> None:
        if self.locator is not None:
            return  # the op-level check is armed: it reports (or the replay missed the value)
        step = self.step
        if step in self.tripped_steps:
            return
        self.tripped_steps.add(step)
        if self.trip is None:
            self.trip = {"step": step, "phase": phase, "module": module, "where": where,
                         "arm_at": self.step_first_forward}
        if not self.keep_going:
            raise _Tripped()

    # -- results ----------------------------------------------------------------------------
    def dump(self, event: NonFiniteEvent) -> str | None:
        if not self.dump_path:
            return None
        roots = list(self.modules.roots.values())
        model_state = roots[0].state_dict() if len(roots) == 1 else {
            f"{i}.{k}": v for i, r in enumerate(roots) for k, v in r.state_dict().items()}
        optimizers = list(self.optimizers)
        return write_dump(self.dump_path, step=event.step, event=event,
                          batch=self.batch[0] if len(self.batch) == 1 else self.batch, loss=self.loss,
                          model_state=model_state,
                          optimizer_state=optimizers[0].state_dict() if len(optimizers) == 1 else None)


def main(argv: list[str]) -> int:
    script, args = argv[0], argv[1:]
    result_path = os.environ["FAULTLIB_TRACE_RESULT"]
    arm_at = os.environ.get("FAULTLIB_TRACE_ARM_AT")
    tracer = Tracer(arm_at=int(arm_at) if arm_at else None, keep_going=os.environ.get("FAULTLIB_TRACE_CONTINUE") == "1",
                    dump_path=os.environ.get("FAULTLIB_TRACE_DUMP"))
    tracer.install()
    result: dict[str, Any] = {"event": None, "trip": None, "dump": None, "script_exit": 0, "tripped_steps": 0}
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except NonFiniteFound as found:
        if tracer.locator is not None:
            tracer.locator.__exit__(None, None, None)
            tracer.locator = None
        result["event"] = found.event.to_json()
        result["dump"] = tracer.dump(found.event)
    except _Tripped:
        pass
    except SystemExit as exc:
        code = exc.code
        result["script_exit"] = code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        result["script_exit"] = 1
    result["trip"] = tracer.trip
    result["tripped_steps"] = len(tracer.tripped_steps)
    with open(result_path, "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
