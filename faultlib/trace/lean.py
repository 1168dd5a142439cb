"""Lean steps of the watch pass: on a training step whose checks the sampler skips (:mod:`faultlib.trace.sampling`),
nothing of the tracer runs but its two optimizer hooks.

At the end of ``optimizer.step()`` (the post-hook), when the next step's checks are skipped, the module wrapper
(:class:`~faultlib.detect.numerics.module_stack.ModuleStack`) is paused (every call passes straight through) and the
``Tensor.backward`` wrapper calls torch's own at once; at the end of the step before a checked one both check again.
Flags, not swaps of class attributes: assigning ``nn.Module.__call__`` costs ~20 us (the interpreter's caches of
every subclass are invalidated) and assigning ``Tensor.backward`` deoptimises every ``Tensor`` attribute read the
optimizer's Python code makes. On a tiny CPU step (0.3 ms) the wrappers' callbacks, the outermost output kept and
the loss read cost ~5 % of the step; on a lean step what is left is one optimizer post-hook (the pre-hook is taken
out of torch's global hook dict, its count-down done by the post-hook) and one flag test per model call and per
``backward()``.

What the watch pass then relies on (see :meth:`LeanSteps.settle`):

* Steps are counted by ``optimizer.step()`` calls, not model calls: once a lean step ran, the model calls are no
  longer counted, so a trip arms the replay by optimizer step (``arm_step``: from the end of step ``arm_step - 1``,
  where the replay takes its own model-call count as ``arm_at``). A trip after unchecked steps arms from the last
  step checked clean (``update_step``) and is ``deferred``: the replay says where the watch pass would have seen the
  value had it checked that step (the outermost output, the loss), else the trip's own place stands.
* A non-finite loss on a lean step is not read. If it makes a gradient non-finite, ``optimizer.step()`` writes it
  into the parameters (SGD ``p - lr * nan``, Adam ``nan / sqrt(nan)``) and the parameter check of the next checked
  step (or, when the script ends first, the same check at its end) trips; the replay, armed from the last step
  checked clean, names the first step. A non-finite loss whose gradients stay finite (a NaN in a term with no
  gradient) is seen only when it recurs on a checked step: the same trade the gradient sampling makes for outputs
  the loss indexes away.
* Model calls outside training (an evaluation loop under ``torch.no_grad()``, ``torch.inference_mode()`` or
  ``torch.set_grad_enabled(False)``) put the wrappers back for the rest of the step, so their outputs are checked as
  before (not from inside a model call: that call's outermost output is not seen). A model call with gradients on
  (``model.eval()`` alone) was left to the loss read on a skipped step before, and is not checked on a lean one.
* Never lean: the replay, ``--continue``, a torch.distributed rank, a script with an enabled GradScaler (its
  skipped steps leave the parameters finite: the loss read is the check), several optimizers, a script with no
  optimizer, and the first :data:`~faultlib.trace.sampling.WARMUP` steps (the sampler checks them all).
"""

from __future__ import annotations

import os
import sys
from time import perf_counter_ns
from typing import Any


class LeanSteps:
    """The lean-step switch of one :class:`~faultlib.trace.boot.Tracer` (watch pass only).

    Attributes:
        active: whether this step is lean (the wrappers paused).
        since: the optimizer step after which the first lean step ran (model calls are not counted from then on);
            None while every step ran the wrappers.
    """

    def __init__(self, tracer: Any):
        self.tracer = tracer
        self.active = False
        self.enabled = False  # installed: the watch pass
        self.since: int | None = None
        self.optimizer: Any = None  # the optimizer whose steps are counted (checked at the script's end)
        self._modules: Any = None  # the tracer's ModuleStack: paused, not swapped (see ModuleStack.pause)
        self._inside: tuple[Any, ...] = ()
        self._hooks: tuple[Any, ...] = ()  # (pre-hook handle, its function, post-hook handle, its function)
        self._lean_post: Any = None

    def install(self, modules: Any, pre: Any, post: Any) -> None:
        """Take the module tracker to pause and the tracer's optimizer hooks (``torch.utils.hooks.RemovableHandle``
        of the global step pre- and post-hook), and watch evaluation's entries (the tracer's ``Tensor.backward``
        wrapper reads :attr:`active` itself)."""
        import torch
        from torch.autograd import grad_mode

        self._modules, self.enabled = modules, True
        self._hooks = (pre, pre.hooks_dict_ref()[pre.id], post, post.hooks_dict_ref()[post.id])
        tracer, sampler = self.tracer, self.tracer.sampler

        def lean_post(optimizer, args, kwargs):  # a lean step's one hook: what the pair does on a skipped step
            tracer.opt_steps += 1
            sampler.skipped = True
            sampler.left -= 1
            if not sampler.left:  # the next step is checked
                sampler.lean_end_ns = perf_counter_ns()  # what the checked step costs beyond a lean one: window()
                self.full()

        self._lean_post = lean_post
        self._inside = (torch.nn.Module._call_impl.__code__, torch.nn.Module._wrapped_call_impl.__code__)
        lean, undo = self, self.tracer._undo
        for owner in (grad_mode.no_grad, grad_mode.inference_mode):
            enter = owner.__enter__

            def entered(mode, _enter=enter):
                if lean.active:
                    lean.evaluation()
                return _enter(mode)

            owner.__enter__ = entered
            undo.append(lambda owner=owner, enter=enter: setattr(owner, "__enter__", enter))
        enter_mode = grad_mode.set_grad_enabled.__enter__  # `with torch.set_grad_enabled(phase == "train"):`

        def entered_mode(mode):
            if lean.active and not torch.is_grad_enabled():  # its __init__ already set the mode
                lean.evaluation()
            return enter_mode(mode)

        grad_mode.set_grad_enabled.__enter__ = entered_mode
        undo.append(lambda: setattr(grad_mode.set_grad_enabled, "__enter__", enter_mode))
        undo.append(self.full)  # before the wrappers themselves are removed

    def _allowed(self) -> bool:
        tracer = self.tracer
        return (tracer.locator is None and tracer.sampler.enabled
                and not tracer.keep_going and not tracer.world and len(tracer.optimizers) <= 1
                and len(tracer.sampler.optimizers) == 1
                and not tracer.scaler_handles_overflow() and not tracer.modules.stack and os.getpid() == tracer.pid
                and not self._modules.passing)

    def after_step(self, left: int, optimizer: Any) -> None:
        """At the end of ``optimizer.step()``: ``left`` steps are still to be skipped (the next one is if > 0)."""
        if left:
            if not self.active and self.enabled and self._allowed():
                self.optimizer = optimizer
                self._modules.pause()
                pre, _, post, _ = self._hooks
                pre.hooks_dict_ref().pop(pre.id, None)  # the pre-hook's work on a skipped step is in lean_post
                post.hooks_dict_ref()[post.id] = self._lean_post
                self.active = True
                if self.since is None:
                    self.since = self.tracer.opt_steps
                tracer = self.tracer
                tracer.step_args.clear()
                tracer.pending.clear()
                tracer.loss = None
            self.tracer.clipped = None  # what backward() resets on a full step
        elif self.active:
            self.full()

    def full(self) -> None:
        """Back to a full step: the wrappers track and check again."""
        if self.active:
            self._modules.resume()
            pre, pre_hook, post, post_hook = self._hooks
            hooks = pre.hooks_dict_ref()
            if hooks is not None:
                hooks[pre.id] = pre_hook
            hooks = post.hooks_dict_ref()
            if hooks is not None and post.id in hooks:
                hooks[post.id] = post_hook
            self.tracer.clipped = None
            self.active = False

    def evaluation(self) -> None:
        """An evaluation may start (``no_grad``, ``inference_mode``, ``set_grad_enabled(False)``) on a lean step: its model calls are
        checked as before, unless it is inside a model call (that call's outermost output is not seen anyway)."""
        frame, inside = sys._getframe(2), self._inside
        while frame is not None:
            if frame.f_code in inside:
                return
            frame = frame.f_back
        self.full()

    def settle(self, trip: dict[str, Any]) -> None:
        """Once a lean step ran: arm ``trip``'s replay by optimizer step (``arm_step``; ``arm_at`` is then unknown,
        None). After unchecked steps, from the last step checked clean (``update_step``), ``deferred``."""
        if self.since is None:
            return
        sampler = self.tracer.sampler
        if sampler.skipped and sampler.clean_step is not None:
            trip.update(arm_step=sampler.clean_step, update_step=sampler.clean_step, deferred=True)
        else:
            trip["arm_step"] = trip.get("update_step", trip["step"])
        trip["arm_at"] = None
