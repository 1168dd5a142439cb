"""The watch pass's checks of :class:`faultlib.trace.boot.Tracer` (the first run): the cheap reads (a sum and one
host read per tensor), the trip (step, phase, module, where, and where the replay arms) when one is not finite, an
error of the script that says a value was not finite, and the checks at the script's end (the parameters after
unchecked steps, the models' buffers).

A mixin: the hooks that call these are :class:`~faultlib.trace.boot.Tracer`'s.
"""

from __future__ import annotations

import math
import time
from typing import Any

from faultlib.trace import causes
from faultlib.trace.batch import tensor_json


class Watch:
    """The watch pass's methods of :class:`~faultlib.trace.boot.Tracer`."""

    def _new_root(self, module) -> None:
        """Watch: the float parameters and buffers of a model that are finite before its first forward (checked at
        the end)."""
        if self.arm_at is None and self.arm_step is None:
            self.finite_state.append((module, causes.finite_state(module), self.forwards, self.step))

    def check_buffers_at_end(self) -> None:
        """Watch, once the script ended without a trip: a parameter or buffer that :func:`causes.corrupted_state`
        finds was written non-finite; the replay arms from its model's first forward."""
        if self.trip is not None or self.locator is not None:
            return
        sampler = self.sampler
        if self.lean.since is not None and sampler.skipped:  # the steps since the last checked one: their updates
            for optimizer in {id(o): o for o in [*self.optimizers, self.lean.optimizer] if o is not None}.values():
                if not sampler.params_finite(optimizer):
                    step = max(self.opt_steps - 1, sampler.clean_step or 0)
                    self.tripped_steps.add(step)
                    self.trip = {"time": time.time(), "step": step, "phase": "optimizer", "module": None,
                                 "arm_at": None, "input": None,
                                 "where": f"the parameters at the script's end (gradients checked every "
                                          f"{sampler.every} steps)"}
                    self.lean.settle(self.trip)
                    return
        found = causes.corrupted_state(self.finite_state)
        if found is not None:
            module, kind, name, first, first_step = found
            root = self.modules.name_of(module)
            self.tripped_steps.add(self.step)
            self.trip = {"time": time.time(), "step": self.step, "phase": "forward", "module": root, "arm_at": first,
                         "update_step": first_step,  # the replay's first value may be at any step since
                         "where": f"{kind} {name} of {root} at the script's end (finite before its first forward)",
                         "input": None}
            if self.lean.since is not None:  # model calls not counted since: from the step of its first call
                self.trip.update(arm_at=None, arm_step=first_step)

    def _loader_alive(self) -> bool:
        """Watch, when the first step's batch holds a NaN: whether a DataLoader exists (its batch is data, named with
        its samples; no op of the script made it). One scan of the collector's objects, once per trace."""
        import gc

        loader = self.torch.utils.data.DataLoader
        return any(isinstance(o, loader) for o in gc.get_objects())

    def _nan_input(self) -> dict[str, Any] | None:
        """Watch, when a step trips: the first NaN in the positional arguments of its model calls."""
        torch = self.torch
        for module, args, index in self.step_args or ():
            for i, arg in enumerate(args):
                for t in torch.utils._pytree.tree_leaves(arg):
                    if isinstance(t, torch.Tensor) and t.is_floating_point() and bool(torch.isnan(t).any()):
                        return {"input": f"args[{i}] of {self.modules.name_of(module)}.forward", "batch_index": index,
                                "tensor": tensor_json(t)}
        return None

    def _finite(self, t) -> bool:
        """Whether every element of ``t`` is finite: one sum and one read (NaN and inf survive a sum), checked
        element-wise only when the sum is not finite (a sum of finite values can overflow). A 0-dim tensor (a
        loss) is one read."""
        if t.dim() == 0:
            if math.isfinite(t.item()):
                return True
        elif math.isfinite(t.detach().sum().item()):
            return True
        return bool(self.torch.isfinite(t.detach()).all())

    def _output_finite(self, output) -> bool:
        if type(output) is self._tensor_type:  # the common case: one plain tensor, no pytree walk
            return not output.is_floating_point() or self._finite(output)
        torch = self.torch
        tensors = [output] if isinstance(output, torch.Tensor) else [
            t for t in torch.utils._pytree.tree_leaves(output) if isinstance(t, torch.Tensor)]
        return all(self._finite(t) for t in tensors if t.is_floating_point())

    def _cheap_trip(self, phase: str, module: str | None, where: str, **found: Any) -> None:
        """Watch: a check tripped. ``found`` adds what the watch pass knows itself (``kind``, ``file``, ``line``,
        ``op``, ``tensor``). When a parameter is already non-finite and the previous step's gradients were
        finite, the previous ``optimizer.step()`` wrote it: the replay arms from that step."""
        if self.locator is not None:
            return  # the op-level check is armed: it reports
        step = self.step
        if step in self.tripped_steps:
            return
        self.tripped_steps.add(step)
        if self.trip is None:
            nan_input = self._nan_input()
            self.trip = {"time": time.time(), "step": step, "phase": phase, "module": module, "where": where,
                         "arm_at": self.step_first_forward, "input": nan_input, **found}
            if not (self.forwards or self.opt_steps) or (nan_input is not None and self.step_first_forward == 0
                                                           and not self.opt_steps and not self._loader_alive()):
                self.trip["arm_start"] = True  # made before any model call or step (tensor ops, the first batch's
                # own ops): replay from the start, where the op that made it is seen (a loaded batch stays "input")
            sampler = self.sampler
            params = [p for opt in self.optimizers for g in opt.param_groups for p in g["params"]] or [
                p for root in self.modules.roots.values() for p in root.parameters()]  # no optimizer: a manual update
            if self.prev_step_first_forward is not None and nan_input is None and any(
                    p.is_floating_point() and not bool(self.torch.isfinite(p.detach()).all()) for p in params):
                if sampler.skipped and sampler.clean_forward is not None:  # unchecked steps since the clean one
                    self.trip.update(arm_at=sampler.clean_forward, update_step=sampler.clean_step)
                else:
                    self.trip.update(arm_at=self.prev_step_first_forward, update_step=step - 1)
            self.lean.settle(self.trip)
            if self.collectives is not None:
                self.collectives.saw(step, where, phase=phase, module=module)
        if not self.keep_going:
            self._stop()

    def script_failed(self, exc: BaseException, script: str) -> None:
        """Watch: the script dies of an exception; when it says a value was not finite, that is the trip."""
        if self.trip is not None or self.locator is not None:
            return
        said = causes.nonfinite_error(exc, script)
        if said is not None:
            self.tripped_steps.add(self.step)
            self.trip = {"time": time.time(), "step": self.step, "phase": "forward", "module": None,
                         "where": f"the script's error ({said['error']})", "arm_at": self.step_first_forward,
                         "input": self._nan_input(), "file": said["file"], "line": said["line"]}
            if not (self.forwards or self.opt_steps):
                self.trip["arm_start"] = True
            self.lean.settle(self.trip)
            if self.collectives is not None:
                self.collectives.saw(self.step, self.trip["where"], phase="forward", module=None)
