"""Child side of ``faultlib trace``: the checks (:class:`Tracer`); :func:`faultlib.trace.launch.main` installs them,
runs the script with ``runpy`` and writes what was seen to ``FAULTLIB_TRACE_RESULT`` (JSON). Started by
:data:`faultlib.trace.session.LAUNCHER` as ``python -c LAUNCHER SCRIPT ARGS...``.

Environment: ``FAULTLIB_TRACE_RESULT`` (path, required), ``FAULTLIB_TRACE_ARM_AT`` (index of the
model forward from which to check every op; unset = watch pass), ``FAULTLIB_TRACE_ARM_STEP`` (instead: the optimizer
step from whose start to check every op, see :mod:`faultlib.trace.lean`), ``FAULTLIB_TRACE_ARM_START`` (``1``:
check every op from the script's start), ``FAULTLIB_TRACE_CONTINUE``
(``1``: count instead of stopping), ``FAULTLIB_TRACE_DUMP`` (path of the dump to write).

The result file holds ``{"started": true}`` while the script runs, then (see :func:`faultlib.trace.launch.main`):
``end`` (``exit``: the script ended by itself, ran off its end included; ``raised``;
``interrupted``: KeyboardInterrupt; ``stopped``: the tracer stopped it), ``script_exit`` (its
exit status when ``end`` is ``exit`` or ``raised``, else null), ``error`` (one line), ``trip``
(the watch check that tripped first), ``event`` (the armed pass's first non-finite value),
``dump``, ``dump_error``, ``tripped_steps``, ``notes`` (sentences for the report) and ``findings``
(the GradScaler audits' :class:`faultlib.findings.Finding` JSON: misuse, usually with every value finite).

The replay stops at the end of the step that holds its first non-finite value: after
``backward()``, at ``optimizer.step()``, or at the next model call, so the dump holds the whole
batch the step consumed up to there.
"""

from __future__ import annotations

import math
import os
import time
import weakref
from typing import Any, Callable

from faultlib.detect.numerics.module_stack import ModuleStack
from faultlib.detect.numerics.nan_locator import NonFiniteLocator
from faultlib.detect.numerics.sentinel import GradientSentinel
from faultlib.trace import causes, children, loaders
from faultlib.trace.batch import StepInputs, write_dump
from faultlib.trace.clip import patch_clip
from faultlib.trace.lean import LeanSteps
from faultlib.trace.replay import Replay
from faultlib.trace.sampling import GradientSampler
from faultlib.trace.spawn import patch_spawn
from faultlib.trace.watch import Watch


MAX_KEPT_CALLS = 64
"""Watch: the arguments of at most this many model calls per step are kept (references, not copies), to blame
a NaN already in them when the step trips; no reduction runs on them otherwise."""


class _Stop(BaseException):
    """Stops the script: the watch pass tripped, or the armed pass finished the step it found."""


class Tracer(Watch, Replay):
    """The global hooks of one pass (see :mod:`faultlib.trace`).

    Args:
        arm_at: index of the model forward (0-based, outermost, loss modules not counted) from
            which every op is checked; None for the watch pass.
        keep_going: watch pass: count the steps that trip instead of stopping at the first.
        dump_path: where the armed pass writes the dump, or None.
        trip_step: replay: the step the watch pass tripped at.
        world: one rank of a torch.distributed world (stops only at a step's end).
        arm_step: replay: arm at the end of optimizer step ``arm_step - 1`` (0: from the start) instead of at a
            model forward; ``arm_at`` is then the replay's own count of model forwards there (a watch pass that ran
            lean steps does not count them, see :mod:`faultlib.trace.lean`).
        arm_start: replay: arm as soon as installed, before the script runs: the watch pass saw the value before any
            model call and any optimizer step had ended (plain tensor ops), where no later point would be early
            enough.
    """

    def __init__(self, *, arm_at: int | None, keep_going: bool, dump_path: str | None,
                 trip_step: int | None = None, world: bool = False, arm_step: int | None = None,
                 arm_start: bool = False):
        import torch

        self.torch = torch
        self.arm_start = arm_start  # replay: arm when installed (the value came before any model call or step)
        self.arm_step = arm_step  # replay: arm at the end of optimizer step arm_step - 1 (see faultlib.trace.lean)
        self.arm_at = 0 if arm_step == 0 else (None if arm_step is not None else arm_at)
        self.trip_step = trip_step  # replay: the step the watch pass tripped at
        self.keep_going = keep_going
        self.dump_path = dump_path
        self.optimizers: weakref.WeakSet = weakref.WeakSet()
        self.sentinels: dict[int, GradientSentinel] = {}
        self.opt_steps = 0
        self.forwards = 0  # model forwards started
        self.step_first_forward: int | None = None  # the forward that began the current step
        self.prev_step_first_forward: int | None = None  # the forward that began the previous optimizer step
        self.clipped: frozenset[int] | None = None  # ids of the parameters a finite clip_grad_norm_ covered
        self.extra: dict[str, Any] = {}  # replay: what the first event adds (kind, optimizer, gradients_reached)
        self._opt_ids: dict[int, frozenset[int]] = {}
        self._events_before_step = 0
        self.update_event: dict[str, Any] | None = None
        self.trip: dict[str, Any] | None = None
        self.tripped_steps: set[int] = set()
        self.locator: NonFiniteLocator | None = None
        self.inputs: StepInputs | None = None
        self.loss = None
        self.pending: list[tuple[Any, Any]] = []  # watch: (module, output) of the model calls whose check waits
        self.modules = ModuleStack(on_root_forward=self._root_forward, on_root_output=self._root_output,
                                   every_module=False,  # the watch pass tracks outermost calls only
                                   on_new_root=self._new_root)
        self.finite_state: list[tuple[Any, list[tuple[str, str]], int, int]] = []  # (root, finite state, forward, step)
        self.has_optimizer = False
        self.step_args: list[tuple[Any, tuple, int]] = []  # watch: the model calls of the step (kept to blame a NaN)
        self._loss_type = torch.nn.modules.loss._Loss
        self._tensor_type = torch.Tensor
        self._undo: list[Callable[[], None]] = []
        self._at_fork = False
        self.audits: list[Any] = []  # GradScalerAudit per GradScaler created (see _patch_scaler)
        self.world = world  # one rank of a torch.distributed world: stop only at a step's end (see _stop)
        self.stop_pending = False
        self.collectives: Any = None  # world: CollectiveNonFiniteWatch (received / sent through collectives)
        self.rank: int | None = None  # a torch.multiprocessing.spawn child: its process index (torchrun: RANK)
        self.spawn_dir: str | None = None  # the traced parent: where its spawned ranks write their results
        self.spawn_ended: str | None = None  # why the traced parent ended its spawned ranks, if it did
        self.sampler = GradientSampler(enabled=not keep_going and not world)  # which steps' gradients the watch pass checks
        self.lean = LeanSteps(self)  # watch: the wrappers swapped out on the steps the sampler skips
        self.watch_saw: dict[str, int] = {}  # replay: the step whose outermost output / loss was not finite

    # -- clock ------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        """Optimizer steps completed; in a script with no optimizer, model forwards completed."""
        if self.has_optimizer or self.opt_steps:
            return self.opt_steps
        return max(self.forwards - 1, 0)

    def _stop(self) -> None:
        """Stop the script, in the traced process only: a forked child (a DataLoader worker, multiprocessing;
        traced as a child of its own, :mod:`faultlib.trace.forks`) runs on untouched, so the tracer's control flow never reaches its code and its exit code stays its own."""
        if os.getpid() != self.pid:
            return
        if self.world:  # the other ranks wait in this step's collectives: stop where every rank stops
            self.stop_pending = True
            return
        raise _Stop()

    def _step_boundary(self) -> None:
        """World: the end of an optimizer step (or, without an optimizer, the next model call), where a rank
        that found its value stops; every rank that received it through the step's all-reduce stops there too."""
        if self.stop_pending and os.getpid() == self.pid:
            raise _Stop()

    def _forked(self) -> None:
        if self._undo and not children.armed():  # installed, and the fork not traced (faultlib.trace.forks)
            self.forks += 1

    def _count_started_processes(self) -> None:
        """Count multiprocessing children started without a fork (``spawn``, ``forkserver``): fresh interpreters
        that the tracer is not in (fork children are counted by :meth:`_forked`)."""
        import multiprocessing
        import multiprocessing.process

        tracer, original = self, multiprocessing.process.BaseProcess.start

        def start(process, *args, **kwargs):
            method = getattr(process, "_start_method", None) or \
                multiprocessing.get_start_method(allow_none=True) or "fork"
            if method != "fork" and os.getpid() == tracer.pid and not children.armed():
                tracer.spawned += 1  # armed: a traced child (faultlib.trace.children), in the report's children
            return original(process, *args, **kwargs)

        multiprocessing.process.BaseProcess.start = start
        self._undo.append(lambda: setattr(multiprocessing.process.BaseProcess, "start", original))
        patch_spawn(self, _Stop)

    def install(self) -> None:
        """Install the hooks of this pass (global: every model, optimizer and backward of the process)."""
        torch = self.torch
        self.pid, self.forks, self.spawned = os.getpid(), 0, 0
        self.sampler.restart()
        if not self._at_fork:
            os.register_at_fork(after_in_parent=self._forked)  # cannot be undone: counts only while installed
            self._at_fork = True
        self._count_started_processes()
        self.modules.install()
        self._undo.append(self.modules.remove)
        tracer = self
        original_init = torch.optim.Optimizer.__init__

        def init(opt, *args, **kwargs):
            original_init(opt, *args, **kwargs)
            tracer.optimizers.add(opt)
            tracer.has_optimizer = True

        torch.optim.Optimizer.__init__ = init
        self._undo.append(lambda: setattr(torch.optim.Optimizer, "__init__", original_init))
        self._patch_scaler()
        if self.trip_step is not None:  # the replay: a NaN already in a batch is named with its samples
            loaders.install(self._undo)
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        hooks = register_optimizer_step_pre_hook(self._before_step), register_optimizer_step_post_hook(self._after_step)
        self._undo += [hook.remove for hook in hooks]
        original_backward = torch.Tensor.backward
        self._undo.append(lambda: setattr(torch.Tensor, "backward", original_backward))

        lean = self.lean

        def backward(tensor, *args, **kwargs):
            if lean.active:  # a lean step: torch's own (a flag, not a swap: see faultlib.trace.lean)
                return original_backward(tensor, *args, **kwargs)
            tracer._before_backward(tensor)
            out = original_backward(tensor, *args, **kwargs)
            if tracer.locator is None:  # the watch pass: nothing else to do after a backward
                tracer.clipped = None
                return out
            tracer._after_backward()
            if not tracer.scaler_handles_overflow():  # else the step goes on: GradScaler.step skips an overflow,
                tracer._stop_if_found()  # an optimizer.step() past it applies it (see _step_past_scaler)
            return out

        torch.Tensor.backward = backward
        if self.arm_at is None and self.arm_step is None:  # the watch pass
            self.lean.install(self.modules, *hooks)
        patch_clip(self)
        if self.world:
            from faultlib.detect.distributed.nonfinite import CollectiveNonFiniteWatch

            self.collectives = CollectiveNonFiniteWatch(step=lambda: tracer.step).install()
            self._undo.append(self.collectives.uninstall)
        if self.arm_start:
            self._arm()
            self.inputs.begin_step(0)  # the step's inputs are sorted from its first model call on, if it makes one
            self.inputs.paused = True

    def _patch_scaler(self) -> None:
        """Audit every ``torch.amp.GradScaler`` the traced process creates (``torch.cuda.amp.GradScaler`` is a
        subclass): a :class:`~faultlib.detect.training.scaler_audit.GradScalerAudit` made in ``__init__``, before the
        script can bind the scaler's methods; it learns the optimizers at ``unscale_``/``step``. A fork's own
        tracer audits the scalers the fork creates, and those its parent's audited before the fork
        (:meth:`adopt_scalers`, from :mod:`faultlib.trace.forks`)."""
        from faultlib.detect.training.scaler_audit import GradScalerAudit

        scaler_type = getattr(getattr(self.torch, "amp", None), "GradScaler", None)
        if scaler_type is None:
            return
        tracer, original_init = self, scaler_type.__init__

        def init(scaler, *args, **kwargs):
            original_init(scaler, *args, **kwargs)
            if os.getpid() == tracer.pid and not any(a.scaler is scaler for a in tracer.audits):
                tracer.audits.append(GradScalerAudit(scaler, patch_clips=False))  # once, also for a subclass's super()
                # (trace's own clip wrappers, installed before the script, call the audits: see faultlib.trace.clip)

        init.__wrapped__ = original_init  # type: ignore[attr-defined]
        scaler_type.__init__ = init
        self._undo.append(lambda: setattr(scaler_type, "__init__", original_init))

    def adopt_scalers(self, audits: list[Any]) -> None:
        """In a fork: audit here the GradScalers ``audits`` (the parent's tracer's, copied into the fork) audited.
        The copied audits themselves are taken over, their findings from before the fork dropped (the parent's):
        their wrappers stay, so a scaler method the script bound to a name before the fork (``step =
        scaler.step``) is audited in the fork too."""
        for audit in audits:
            if not any(a.scaler is audit.scaler for a in self.audits):
                audit.forget_findings()
                self.audits.append(audit)
        audits.clear()  # the copy's list: the parent's findings stay the parent's

    def scaler_handles_overflow(self) -> bool:
        """Whether an enabled GradScaler lives in this process: a non-finite gradient is then its ordinary overflow
        (``GradScaler.step`` skips ``optimizer.step()`` and ``update()`` lowers the loss scale; torch/amp/
        grad_scaler.py), not a fault to stop the script for. A NaN that reaches the weights or the loss is still
        caught by the other checks."""
        return any(audit.scaler.is_enabled() for audit in self.audits)

    def scaler_findings(self) -> list[dict[str, Any]]:
        """The GradScaler audits' findings (``Finding.to_json()``), their wrappers removed (latest first)."""
        found = [f.to_json() for audit in self.audits for f in audit.findings()]
        while self.audits:
            self.audits.pop().close()
        return found

    def uninstall(self) -> None:
        """Remove what :meth:`install` installed (the armed modes first); the pass's findings stay readable."""
        self.disarm()
        while self._undo:
            self._undo.pop()()

    # -- arming -----------------------------------------------------------------------------
    # -- hooks ------------------------------------------------------------------------------
    def _root_forward(self, module, args) -> None:
        if isinstance(module, self._loss_type):
            return  # a loss module is part of the step, not a model call
        if self.locator is not None:
            self._stop_if_found()  # the next model call ends the step the armed pass found
        if not (self.has_optimizer or self.opt_steps):
            self._step_boundary()
        index = self.forwards
        self.forwards += 1
        if self.step_first_forward is None or not (self.has_optimizer or self.opt_steps):
            if not (self.has_optimizer or self.opt_steps):  # the previous model call began the previous step
                self.prev_step_first_forward = self.step_first_forward
            self.clipped = None
            self.step_first_forward = index  # without an optimizer, each model call is a step
            self.step_args.clear()  # reused: no list allocated per step
            self.loss = None
            self.pending.clear()
            if self.inputs is not None:
                self.inputs.begin_step(index)
        if self.arm_at is not None and index >= self.arm_at:
            if self.locator is None:
                self._arm()
            self.inputs.paused = False
            self.inputs.add_batch(module, args, index)
        elif len(self.step_args) < MAX_KEPT_CALLS:
            self.step_args.append((module, args, index))  # checked for a NaN only if the step trips

    def _root_output(self, module, output) -> None:
        """Watch: the outermost module's output is finite. On a training step whose gradient check the sampler
        skips, it is kept for the loss read instead (see :mod:`faultlib.trace.sampling`): the reduction would cost
        as much as the gradient check the sampler saves."""
        sampler = self.sampler
        if self.locator is not None:  # replay: where a watch pass checking this step would have seen it
            if "output" not in self.watch_saw and not self._unchecked(output):
                self.watch_saw["output"] = self.step
            return
        if sampler.left and self.torch.is_grad_enabled():
            if len(self.pending) < MAX_KEPT_CALLS:
                self.pending.append((module, output))
            return
        started = time.perf_counter_ns()
        finite = self._output_finite(output)
        sampler.output_ns = time.perf_counter_ns() - started  # counted in the check's cost that sets k
        if not finite:
            self._cheap_trip("forward", self.modules.name_of(module), "the output of the outermost module")

    def _before_backward(self, tensor) -> None:
        self.loss = tensor
        if self.locator is not None:
            if "loss" not in self.watch_saw and tensor.is_floating_point() and not self._unchecked(tensor):
                self.watch_saw["loss"] = self.step  # where a watch pass checking this step would have seen it
            self._stop_if_found()
        if tensor.is_floating_point() and not (  # a loss: one read, inline (each call is paid every step)
                math.isfinite(tensor.item()) if tensor.dim() == 0 else self._finite(tensor)):
            bad = next((module for module, output in self.pending if not self._output_finite(output)), None)
            if bad is not None:  # the first output whose check waited
                self._cheap_trip("forward", self.modules.name_of(bad), "the output of the outermost module")
            else:
                self._cheap_trip("forward", None, "the tensor backward() was called on")
        if self.pending:
            self.pending.clear()

    def _before_step(self, optimizer, args, kwargs) -> None:
        """The gradient sentinel over this optimizer's parameters (named from the modules seen)."""
        if self.locator is not None:
            if self.update_event is None and self.scaler_handles_overflow() and not causes.inside_scaler_step():
                self._step_past_scaler(optimizer)
            self._stop_if_found()
            self._events_before_step = len(self.locator.events)
            self.inputs.paused = True
            return
        clipped = self.clipped
        if clipped is not None:
            ids = self._opt_ids.get(id(optimizer))
            if ids is None:
                ids = self._opt_ids[id(optimizer)] = frozenset(
                    id(p) for group in optimizer.param_groups for p in group["params"])
            if ids <= clipped:
                return  # clip_grad_norm_ found the total norm finite: every gradient is
        sampler = self.sampler
        if sampler.skip():
            return  # a tiny step: checked one in sampler.every (see faultlib.trace.sampling)
        started = time.perf_counter_ns()
        if sampler.skipped and not sampler.params_finite(optimizer):
            self._cheap_trip("optimizer", None, f"the parameters at optimizer.step() (gradients checked every "
                             f"{sampler.every} steps)")
            return
        sentinel = self.sentinels.get(id(optimizer))
        if sentinel is not None and sentinel.tripped() is False:
            sampler.clean(self.step, self.step_first_forward, optimizer, started)
            return  # the common step: one fused kernel over every gradient, one flag read
        if not any(p.grad is not None for group in optimizer.param_groups for p in group["params"]):
            return
        if sentinel is None:
            names = {id(p): n for root in self.modules.roots.values() for n, p in root.named_parameters()}
            params = [(names.get(id(p), f"param{i}"), p)
                      for i, p in enumerate(p for group in optimizer.param_groups for p in group["params"])]
            sentinel = self.sentinels[id(optimizer)] = GradientSentinel(params)
        check = sentinel.check(self.step)
        if check.overflow:
            self._cheap_trip("backward", check.finding().location.get("module"), "the gradients at optimizer.step()")
        else:
            sampler.clean(self.step, self.step_first_forward, optimizer, started)

    def _after_step(self, optimizer, args, kwargs) -> None:
        if self.locator is not None:
            self.inputs.paused = False
            if "optimizer" not in self.extra:
                self._check_update(optimizer)
        self.opt_steps += 1
        self.prev_step_first_forward, self.step_first_forward = self.step_first_forward, None
        if self.locator is not None:
            self._stop_if_found()
        elif self.arm_at is not None and self.forwards == self.arm_at or self.arm_step == self.opt_steps:
            self.arm_at = self.forwards  # replay: from the end of the step before, so the locator sees what the
            self._arm()  # script computes
            self.inputs.begin_step(self.forwards)  # before its first model call (a batch standardised by a zero
            self.inputs.paused = True  # std); the step's inputs are sorted from that call on, as before
        if self.sampler.left:  # the next step goes unchecked: lean (see faultlib.trace.lean)
            if not self.lean.active:
                self.lean.after_step(self.sampler.left, optimizer)
            self.clipped = None
        elif self.lean.active:
            self.lean.full()
        if self.sampler.checked:  # a checked step ended: what it cost beyond a lean one (faultlib.trace.sampling)
            self.sampler.window(time.perf_counter_ns(), self.lean.active)
        if self.stop_pending:  # (tested here: one call fewer per step)
            self._step_boundary()

    # -- results ----------------------------------------------------------------------------
    def results(self) -> dict[str, Any]:
        """``trip``, ``event``, ``dump``, ``dump_error``, ``tripped_steps`` of this pass (modes left first)."""
        self.disarm()
        event = self.first_event()
        if event is not None and self.watch_saw.get("loss") == event["step"]:  # for a deferred trip (faultlib.trace.lean)
            event["seen_in"] = ("the output of the outermost module" if self.watch_saw.get("output") == event["step"]
                                else "the tensor backward() was called on")
        result = {"trip": self.trip, "event": event, "dump": None, "dump_error": None,
                  "tripped_steps": len(self.tripped_steps), "notes": [], "findings": self.scaler_findings(),
                  "watched": {"forwards": self.forwards, "optimizer_steps": self.opt_steps}}
        if self.forks:
            result["notes"].append(f"the script forked {self.forks} child process(es) (DataLoader workers, "
                                   "multiprocessing): they ran untraced, a non-finite value there is not reported")
        if self.spawned:
            result["notes"].append(f"the script started {self.spawned} multiprocessing process(es) by spawn or "
                                   "forkserver: they ran untraced, a non-finite value there is not reported")
        if self.collectives is not None:
            result["world"] = self.collectives.summary(self.rank)
        if self.spawn_dir is not None:
            import json

            ranks = {}
            for name in sorted(os.listdir(self.spawn_dir)):
                if name.startswith("rank") and name.endswith(".json"):
                    with open(os.path.join(self.spawn_dir, name), encoding="utf-8") as fh:
                        ranks[name[4:-5]] = json.load(fh)
            result["spawned_ranks"] = ranks
            if self.spawn_ended:
                result["notes"].append(self.spawn_ended)
        inf = self.inputs.inf_seen if self.inputs is not None else None
        if event is not None and event["source"] == "op" and inf is not None:
            result["notes"].append(f"the step's input already held inf before {event['op']} made the non-finite "
                                   f"value: {inf['input']} ({inf['tensor']['inf']} inf; {inf['file']}:{inf['line']})")
        if event is not None and self.dump_path:
            roots = [r for r in self.modules.roots.values() if not isinstance(r, self.torch.nn.modules.loss._Loss)]
            model_state = roots[0].state_dict() if len(roots) == 1 else {
                f"{i}.{k}": v for i, r in enumerate(roots) for k, v in r.state_dict().items()}
            optimizers = list(self.optimizers)
            optimizer_state = optimizers[0].state_dict() if len(optimizers) == 1 else None
            try:
                result["dump"] = write_dump(self.dump_path, step=event["step"], event=event, inputs=self.inputs,
                                            loss=self.loss, model_state=model_state, optimizer_state=optimizer_state)
            except (OSError, RuntimeError) as exc:
                result["dump_error"] = f"{self.dump_path}: {exc}"
        return result
