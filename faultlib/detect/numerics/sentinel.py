"""Gradient sentinels: one cheap pass over every gradient per step (and, optionally, over
module outputs), with a precise explanation only when the cheap pass trips.

:class:`GradientSentinel` tests gradients for non-finite values; :class:`OverflowSentinel`
is the same sentinel with the fp16 saturation test switched on. Two tests, each only where
it means something:

* **non-finite** (``inf``/``nan``) in any gradient, whatever its dtype: the signature of an
  overflow in an fp16 forward or backward (GradScaler skips such steps silently);
* **fp16 saturation**: a max-abs value at or above the fp16 limit 65504
  (``torch.finfo(torch.float16).max``) *in gradients that are themselves fp16*. fp32
  gradients of a scaled loss legitimately exceed 65504 (a loss scale of 65536 times a
  gradient of 1), so testing them against the fp16 limit would be a false alarm that the
  control run exposes.

The cheap pass, the first that applies:

0. **The total norm the script already computed.** ``check(total_norm=clip_grad_norm_(...))``: the L2 norm of
   all gradients is finite exactly when every gradient is, unless it overflowed (the sum of squares passed
   the dtype's maximum with every gradient finite: then ``clip_grad_norm_`` scaled every gradient by
   ``max_norm / inf = 0`` and the update is lost, reported as ``grad_norm_overflow``). One host read of a
   0-dim tensor, no pass over the gradients. A NaN total norm makes ``clip_grad_norm_`` multiply every gradient
   by NaN, so the parameter where it began can no longer be told apart (``every_nan``); to keep it nameable,
   split the clip: ``norm = torch.nn.utils.get_total_norm(grads)``, ``check(step, total_norm=norm)``, then
   ``torch.nn.utils.clip_grads_with_norm_(params, max_norm, norm)`` (the two halves of ``clip_grad_norm_``).
0b. **The flat gradient buffer** (``flat_grads=True``, opt-in; where 1. does not apply): every ``.grad`` is a
   view of one buffer the sentinel owns (:class:`~faultlib.detect.numerics.flat_grads.FlatGradients`), zeroed by
   :meth:`GradientSentinel.zero_grad`; after an identity test that every ``.grad`` is still its view, the fused
   kernel of 2. runs over that one tensor (one dispatch and one tensor iterator, instead of one iterator per
   gradient). Where a view was replaced, 2. checks the gradients as they are (warned once).
1. **GradScaler's verdict.** After ``scaler.unscale_(optimizer)`` GradScaler has checked every
   gradient for inf/NaN; the sentinel reads that result (one host read per device).
2. **GradScaler's fused kernel, run by the sentinel** (fp32 or bf16 training, or before
   ``unscale_``): ``torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf,
   inv_scale)`` with an inverse scale of 1.0, one dispatch for all gradients of a device and
   dtype (grouped as ``GradScaler._unscale_grads_`` does), one host read per device;
   ``found_inf`` is zeroed only after it trips. With an inverse scale of 1 PyTorch's CPU and
   CUDA kernels write each value back unchanged: finite and infinite values keep their bits, a
   NaN stays a NaN (bf16 may change its sign and payload bits); the op is outside autograd, so neither the
   version counter nor the gradients' autograd history moves.
3. **A reduction per gradient** where the kernel does not apply (sparse gradients; gradients
   that require grad after ``backward(create_graph=True)``, which an in-place write could
   break; devices without the op): each gradient reduced to one number whose finiteness is the
   gradient's (NaN and inf propagate through sums and max-abs), the numbers added, one host
   read. CPU sums each tensor, CUDA runs one ``torch._foreach_norm``.

fp16 gradients additionally get one max-abs per tensor for the saturation test. Per-parameter
counts are computed only when the cheap pass trips.

Cost (``benchmarks/run.py``, ``benchmarks/sentinel_paths.py``, CPU, one thread; ``benchmarks/README.md`` has
the tables): inside a training loop each extra op pays ~5-25 µs of cold dispatch and every line of Python
several times its tight-loop cost, so what counts is dispatches and Python, not bytes. On the fp32 digits MLP
(a ~0.45 ms step here) the reduction pass (n+3 dispatches for n gradients) costs ~9-12 %, the fused kernel
alone with no Python around it ~3.5-6 % (load average 1-9; the floor of every per-step read measured:
per-gradient hooks, ``foreach`` reductions, one flattened copy all cost more, and the parameters after the step
cost as much), and :meth:`GradientSentinel.check` ~1-3 % above that; reusing GradScaler's verdict under AMP
~1 %, the clip's total norm ~0 %. ``check_every=k`` checks one step in ``k`` for workloads where that is still
too much, at a cost in detection latency that :class:`GradientSentinel` spells out. With ``flat_grads=True`` the
check over the one buffer costs ~1.5-3 % of the step with the buffer, which is ~2 % cheaper than the plain step
(gradients no longer freed and allocated every step): checked, it costs what the plain step did (0.99-1.01), at
the semantics of ``zero_grad(set_to_none=False)``.
"""

from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any, Iterable

from faultlib.detect.numerics.flat_grads import FlatGradients
from faultlib.detect.numerics.fused_pass import FusedGroup, FusedPlan
from faultlib.detect.numerics.gradient_check import FP16_MAX, GradientCheck, healthy_check
from faultlib.errors import DetectorError

__all__ = ["FP16_MAX", "GradientCheck", "GradientSentinel", "OverflowSentinel"]

_REQUIRES_GRAD = operator.attrgetter("requires_grad")
_GRAD = operator.attrgetter("grad")
_IS = operator.is_
_IS_NONE = functools.partial(operator.is_, None)  # for map(): `x is None` without a Python frame per item
_new, _setattr = object.__new__, object.__setattr__  # a healthy result without GradientCheck.__init__


class GradientSentinel:
    """Checks all gradients of a model after backward, before the optimizer step.

    Args:
        named_parameters: ``model.named_parameters()`` (or any iterable of (name, Parameter)).
        fp16_limit: saturation threshold for fp16 gradients; ``None`` (default) disables the
            saturation test (:class:`OverflowSentinel` sets 65504, the fp16 max).
        scaler: optional ``torch.amp.GradScaler``; when given and ``check`` receives the
            optimizer after ``scaler.unscale_(optimizer)``, the scaler's own fused inf/NaN
            result is reused (reads GradScaler's per-optimizer state; falls back to the
            sentinel's own pass when that state is not there).
        watch_outputs: a module whose submodules' forward outputs are checked too (optional;
            one sum per module per forward (fp16/bf16 accumulated in fp32), all read back with one host read
            in :meth:`check`, per module only when the total is not finite; with
            ``check_every`` > 1 only the forwards before a checked step are watched).
        check_every: check one step in ``k`` (default 1: every step). The first call of
            :meth:`check` is checked, then every ``k``-th call; ``check(force=True)`` checks
            whatever the period.
        flat_grads: make every ``.grad`` a view of one buffer the sentinel owns (default False), so that a check
            is one kernel call over one tensor; zero the gradients with :meth:`zero_grad` (or
            ``optimizer.zero_grad(set_to_none=False)``), not ``set_to_none=True``, which drops the views (the
            check then reads the gradients one by one and warns once). Every parameter then has a gradient on
            every step, zero where the loss did not reach it, as with ``set_to_none=False``. Needs dense
            floating-point parameters of one device and dtype.

    Detection latency of ``check_every=k``: a non-finite gradient born at step ``s`` is
    reported at the first checked step ``>= s`` (at most ``k - 1`` steps late) if it is still
    there by then. Without a GradScaler it is: nothing skips the poisoned update, so the
    optimizer writes the NaN/inf into the weights (and momentum or Adam moments) and every
    later gradient is non-finite. What the latency costs in such fp32 training is the
    mitigation: when the sentinel speaks, up to ``k - 1`` poisoned updates are already applied,
    skipping the step no longer helps, and recovering means restoring the last checkpoint
    (``check(force=True)`` before saving one keeps poisoned state out of it). Under a
    GradScaler the scaler still skips every overflowing step itself; an isolated overflow on
    an unchecked step then leaves the weights finite and is never reported (only the halved
    loss scale shows it). Keep ``k = 1`` where skipping the step is the mitigation (the
    fp16_overflow and nan_gradient cases do).

    Call order: ``loss.backward()`` (and ``scaler.unscale_(optimizer)`` if a GradScaler is
    used, so ``counts`` show unscaled values), then :meth:`check`, then ``optimizer.step``.

    Raises:
        DetectorError: no parameters were given, ``check_every`` is not an integer >= 1, or ``flat_grads=True`` with
            parameters of several devices or dtypes.
    """

    name = "gradient_sentinel"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, fp16_limit: float | None = None,
                 scaler: Any = None, watch_outputs: Any = None, check_every: int = 1, flat_grads: bool = False):
        import torch

        self.params = [(n, p) for n, p in named_parameters if p.requires_grad]
        if not self.params:
            raise DetectorError(f"{type(self).__name__} needs parameters that require grad: "
                                "pass model.named_parameters()")
        if isinstance(check_every, bool) or not isinstance(check_every, int) or check_every < 1:
            raise DetectorError(f"check_every must be an integer >= 1 (1 checks every step), got {check_every!r}")
        self.fp16_limit = float(fp16_limit) if fp16_limit is not None else None
        self.scaler = scaler
        self.check_every = check_every
        self.calls = 0
        self._forced = 0  # calls that check_every would have skipped but force=True checked
        self.overflow_steps = 0
        self._tensors = [p for _, p in self.params]
        self._fused_plans: dict[tuple[int, ...] | None, FusedPlan] = {}
        self._fast: FusedGroup | None = None  # the plan of the all-gradients layout, when it is one group
        self._fused_op = torch._amp_foreach_non_finite_check_and_unscale_
        self._output_flags: list[tuple[str, Any]] = []
        self._hooks = []
        if watch_outputs is not None:
            for module_name, module in watch_outputs.named_modules():
                if module_name:
                    self._hooks.append(module.register_forward_hook(self._output_hook(module_name)))
        # flat_grads: the buffer, its one-tensor list for the kernel, and its flag; None when off or when the check
        # needs more than non-finiteness (the fp16 saturation test, watched outputs)
        self._flat = FlatGradients(self.params) if flat_grads else None
        self._flat_pass: tuple[Any, ...] | None = None  # ([buffer], its FusedGroup, params, views, flag, 1.0)
        if self._flat is not None and self.fp16_limit is None and not self._hooks:
            device = self._flat.buffer.device
            group = FusedGroup(None, torch.zeros(1, device=device), torch.ones(1, device=device))
            self._flat_pass = ([self._flat.buffer], group, self._flat.params, self._flat.views, group.found_inf,
                               group.inv_scale)
        self._flat_warned = False

    def _output_hook(self, module_name: str):
        import torch

        accumulate = {torch.float16: torch.float32, torch.bfloat16: torch.float32}

        def hook(_module, _inputs, output):
            if self.calls % self.check_every:
                return None  # the next check() is not a checked step
            if isinstance(output, torch.Tensor) and output.is_floating_point():
                # one reduction, no host sync: NaN and inf survive a sum (fp16/bf16 summed in fp32, so finite
                # values cannot overflow it); the sums are read once per step in check()
                self._output_flags.append((module_name, output.detach().sum(dtype=accumulate.get(output.dtype))))
            return None

        return hook

    def close(self) -> None:
        """Remove the module-output hooks."""
        for handle in self._hooks:
            handle.remove()
        self._hooks.clear()

    def zero_grad(self) -> None:
        """Zero every gradient of a ``flat_grads=True`` sentinel with one ``zero_`` of its buffer (views that
        something replaced are put back first); call it where the loop called ``optimizer.zero_grad()``.

        Raises:
            DetectorError: the sentinel was made without ``flat_grads=True`` (call ``optimizer.zero_grad()``).
        """
        if self._flat is None:
            raise DetectorError(f"{type(self).__name__}.zero_grad() zeroes the buffer of flat_grads=True; "
                                "this sentinel has none: call optimizer.zero_grad()")
        self._flat.zero_()

    def _flat_tripped(self) -> bool | None:
        """The ``flat_grads`` pass: whether the buffer holds inf/NaN (flag cleared), by one kernel call over it;
        None where a ``.grad`` is not its view (warned once) or the kernel refused the buffer's device."""
        tensors, group = self._flat_pass[:2]
        if not self._flat.attached():
            if not self._flat_warned:
                self._flat_warned = True
                warnings.warn(f"{type(self).__name__}(flat_grads=True): the gradients are no longer views of its "
                              "buffer (optimizer.zero_grad() sets them to None by default; backward(create_graph="
                              "True) replaces them): call sentinel.zero_grad() or optimizer.zero_grad(set_to_none="
                              "False); the gradients are checked one by one until then", RuntimeWarning, stacklevel=3)
            return None
        try:
            self._fused_op(tensors, group.found_inf, group.inv_scale)
        except RuntimeError:  # NotImplementedError included: a device without the op; the other passes remain
            group.found_inf.zero_()
            self._flat_pass = None
            return None
        host = group.host
        if host is not None and not host[0]:
            return False
        return group.found()

    def check(self, step: int | None = None, optimizer: Any = None, *, force: bool = False,
              total_norm: Any = None) -> GradientCheck:
        """Check every gradient present now (on a checked step).

        Args:
            step: the step index, for the finding's location.
            optimizer: the optimizer whose gradients ``scaler.unscale_`` just checked (optional).
            force: check even when ``check_every`` would skip this call (default False).
            total_norm: what ``torch.nn.utils.clip_grad_norm_`` returned for these parameters this step (a 0-dim
                tensor or a float), when the script clips: its finiteness is the check (one host read). A
                non-finite norm is explained per parameter; with every gradient finite it overflowed
                (``norm_overflow``). ``torch.nn.utils.get_total_norm`` before ``clip_grads_with_norm_`` keeps a
                NaN's parameter nameable: after ``clip_grad_norm_`` a NaN norm has made every gradient NaN
                (``every_nan``).

        Returns:
            A :class:`GradientCheck`; ``.overflow`` tells whether to skip the update, and
            ``.checked`` is False on a step ``check_every`` skipped.

        Raises:
            DetectorError: a checked step found no gradient at all (called before backward).
        """
        calls = self.calls
        self.calls = calls + 1
        if calls % self.check_every:
            if not force:
                return GradientCheck(step, detector=self.name, checked=False)
            self._forced += 1
        flat = self._flat_pass
        if flat is not None and total_norm is None and (optimizer is None or self.scaler is None):
            # flat_grads: the step's whole check, inline (a Python frame costs ~1 us inside a training step): every
            # .grad still its view, one kernel call over the buffer, one flag read; anything else in _flat_tripped
            tensors, group, params, views, found_inf, inv_scale = flat
            if all(map(_IS, map(_GRAD, params), views)):
                try:
                    self._fused_op(tensors, found_inf, inv_scale)
                except RuntimeError:  # a device without the op: _flat_tripped meets it again and drops this pass
                    found = self._flat_tripped()
                else:
                    host = group.host
                    if host is not None and not host[0]:
                        healthy = _new(GradientCheck)
                        _setattr(healthy, "__dict__", {"step": step, "counts": {}, "detector": self.name})
                        return healthy
                    found = group.found()
            else:
                found = self._flat_tripped()  # a view dropped: warned once, the gradients checked as they are
            if found is False:
                return healthy_check(step, self.name)
            if found:
                self.overflow_steps += 1
                return self._explain(step, None)
        fast = self._fast
        if fast is not None and total_norm is None and (optimizer is None or self.scaler is None):
            # the common step, in as little Python as a training loop can pay for (each line costs there several
            # times its cost in a tight loop): one fused kernel over a fresh list of the gradients, one flag read
            every = list(map(_GRAD, self._tensors))
            try:
                if any(map(_REQUIRES_GRAD, every)):  # backward(create_graph=True): _check leaves them alone
                    fast = None
                else:
                    self._fused_op(every, fast.found_inf, fast.inv_scale)
            except AttributeError:  # a parameter without a gradient (None): _check handles that layout
                fast = None
            except RuntimeError:  # a parameter moved to another device: plan again
                self._forget_fast()
                fast = None
            if fast is not None:
                host = fast.host
                if host is not None and not host[0]:
                    healthy = _new(GradientCheck)  # healthy_check(step, self.name) without a call
                    _setattr(healthy, "__dict__", {"step": step, "counts": {}, "detector": self.name})
                    return healthy
                if fast.found():
                    self.overflow_steps += 1
                    return self._explain(step, None)
                return healthy_check(step, self.name)
        elif total_norm is not None and not self._output_flags and self.fp16_limit is None:
            norm = float(total_norm)
            if math.isfinite(norm):
                return healthy_check(step, self.name)
            self.overflow_steps += 1
            explained = self._explain(step, None if all(p.grad is not None for p in self._tensors) else
                                      tuple(i for i, p in enumerate(self._tensors) if p.grad is not None))
            return GradientCheck(step, explained.nonfinite, explained.saturated, explained.counts, detector=self.name,
                                 norm_overflow=None if explained.nonfinite else norm,
                                 every_nan=explained.every_nan)
        return self._check(step, optimizer, list(map(_GRAD, self._tensors)))

    @property
    def steps_checked(self) -> int:
        """How many calls of :meth:`check` looked at the gradients: every ``check_every``-th call from the first,
        plus the calls ``force=True`` checked off the period (counted, not stored per step: the per-step path
        does as little as it can)."""
        return -(-self.calls // self.check_every) + self._forced

    def tripped(self) -> bool | None:
        """The common case of :meth:`check` in as few Python steps as possible (each is paid inside the training
        loop), with no :class:`GradientCheck` built: whether any gradient holds inf/NaN now, by one call of the
        fused kernel and a read of its flag (cleared again). ``None`` where that path does not apply yet or here:
        before the first :meth:`check` has planned the layout, a missing gradient, several devices or dtypes, the
        fp16 saturation test, watched outputs, gradients that require grad (``create_graph``). Ignores
        ``check_every`` and counts nothing: :meth:`check` is the counted, explained call.
        """
        if self._flat_pass is not None:
            found = self._flat_tripped()
            if found is not None:
                return found
        fast = self._fast
        if fast is None:
            return None
        every = list(map(_GRAD, self._tensors))
        try:
            if any(map(_REQUIRES_GRAD, every)):  # backward(create_graph=True): leave the gradients alone
                return None
            self._fused_op(every, fast.found_inf, fast.inv_scale)
        except AttributeError:  # a parameter without a gradient this step (None has no requires_grad)
            return None
        except RuntimeError:  # a parameter moved to another device: plan again
            self._forget_fast()
            return None
        host = fast.host
        if host is not None and not host[0]:
            return False
        return fast.found()

    def _forget_fast(self) -> None:
        """Drop the one-group plan after the fused op refused it (its flag cleared): the next check plans again."""
        self._fast.found_inf.zero_()
        self._fast = None
        self._fused_plans.pop(None, None)

    def _check(self, step: int | None, optimizer: Any, every: list[Any]) -> GradientCheck:
        """:meth:`check` for every layout: missing gradients, scaler, fp16 test, watched outputs."""
        import torch

        present: tuple[int, ...] | None = None
        tensors = every
        if any(map(_IS_NONE, every)):
            present = tuple(i for i, g in enumerate(every) if g is not None)
            tensors = [every[i] for i in present]
        if not tensors:
            raise DetectorError(f"{type(self).__name__}.check() found no gradients: call loss.backward() first")
        outputs, self._output_flags = self._output_flags, []
        if outputs and not math.isfinite(torch.stack([total for _, total in outputs]).sum().item()):
            # one read for every watched output; per output only when the total is not finite (the sum of sums
            # can overflow where no output does; an fp32/fp64 output whose own values sum past the dtype's max,
            # ~3.4e38 in fp32, counts as non-finite)
            bad = [name for name, total in outputs if not math.isfinite(total.item())]
            if bad:
                self.overflow_steps += 1
                explained = self._explain(step, present)
                return GradientCheck(step, explained.nonfinite, explained.saturated, explained.counts,
                                     tuple(dict.fromkeys(bad)), self.name, every_nan=explained.every_nan)
        half = [g for g in tensors if g.dtype == torch.float16] if self.fp16_limit is not None else []
        found_inf = self._scaler_found_inf(optimizer)
        if found_inf is None:
            found_inf = self._fused_found_inf(present, tensors)
        if found_inf is None:
            tripped = self._reduction_tripped(tensors, half)
        else:
            tripped = found_inf or (bool(self._saturated(half).item()) if half else False)
        if not tripped:
            return GradientCheck(step)
        self.overflow_steps += 1
        return self._explain(step, present)

    def _saturated(self, half: list[Any]) -> Any:
        """0-dim bool tensor: some fp16 gradient reaches ``fp16_limit`` (no host read)."""
        import torch

        return torch.stack(torch._foreach_norm(half, math.inf)).max() >= self.fp16_limit

    def _scaler_found_inf(self, optimizer: Any) -> bool | None:
        """GradScaler's verdict for ``optimizer`` after ``unscale_``; None when not available."""
        if self.scaler is None or optimizer is None or not self.scaler.is_enabled():
            return None
        state = getattr(self.scaler, "_per_optimizer_states", {}).get(id(optimizer))
        if not state or getattr(state.get("stage"), "name", None) != "UNSCALED":
            return None
        found = state.get("found_inf_per_device") or {}
        if not found:
            return None
        return any(v.item() for v in found.values())

    def _fused_found_inf(self, present: tuple[int, ...] | None, tensors: list[Any]) -> bool | None:
        """Whether any gradient holds inf/NaN, by the fused op; None where the op does not apply.

        The plan (groups by device and dtype) is cached per set of parameters that have a
        gradient; a parameter moved to another device makes the op raise, and the plan is
        rebuilt once. Gradient values are left as they were (inverse scale 1.0).
        """
        if any(map(_REQUIRES_GRAD, tensors)):
            return None  # backward(create_graph=True): leave the gradients' autograd history alone
        plan = self._fused_plans.get(present)
        for attempt in range(2):
            if plan is None:
                plan = self._fused_plans[present] = FusedPlan.build(tensors)
            if not plan.groups:
                return None
            try:
                for group in plan.groups:
                    self._fused_op(tensors if group.indices is None else [tensors[i] for i in group.indices],
                                   group.found_inf, group.inv_scale)
            except RuntimeError:  # NotImplementedError included: a device without the op
                for flag in plan.flags:
                    flag.found_inf.zero_()
                if present is None:
                    self._fast = None
                if attempt:  # a fresh plan failed too: this layout takes the reduction path from now on
                    self._fused_plans[present] = FusedPlan([])
                plan = None
                continue
            if present is None and len(plan.groups) == 1 and self.fp16_limit is None and not self._hooks:
                self._fast = plan.groups[0]  # check() takes its short path from the next step on
            return any([flag.found() for flag in plan.flags])  # one read per device; all cleared
        return None

    def _reduction_tripped(self, tensors: list[Any], half: list[Any]) -> bool:
        """The fallback pass: one reduction per gradient, one host read."""
        import torch

        if tensors[0].device.type == "cpu":
            # accumulate at least in fp32: an fp16 sum of finite values could itself overflow
            total = torch.stack([g.sum(dtype=torch.promote_types(g.dtype, torch.float32)) for g in tensors]).sum()
        else:
            total = torch.stack([m.float() for m in torch._foreach_norm(tensors, math.inf)]).sum()
        if half:
            return bool((~torch.isfinite(total) | self._saturated(half)).item())
        return not math.isfinite(total.item())

    def _explain(self, step: int | None, present: tuple[int, ...] | None) -> GradientCheck:
        import torch

        indices = range(len(self.params)) if present is None else present
        nonfinite, saturated, counts = [], [], {}
        for i in indices:
            name, grad = self.params[i][0], self.params[i][1].grad
            numel, grad = grad.numel(), grad.detach()
            if grad.layout != torch.strided:  # sparse gradient (nn.Embedding(sparse=True)): its stored values
                grad = grad.coalesce().values() if grad.is_sparse else grad.values()
            max_abs = grad.abs().max().item() if grad.numel() else 0.0
            bad = not math.isfinite(max_abs)
            sat = (self.fp16_limit is not None and grad.dtype == torch.float16 and not bad
                   and max_abs >= self.fp16_limit)
            if bad or sat:
                (nonfinite if bad else saturated).append(name)
                counts[name] = {"nan": int(torch.isnan(grad).sum()), "inf": int(torch.isinf(grad).sum()),
                                "max_abs": max_abs if math.isfinite(max_abs) else str(max_abs),
                                "dtype": str(grad.dtype).replace("torch.", ""), "numel": numel}
        every_nan = len(nonfinite) == len(indices) > 1 and all(counts[n]["nan"] == counts[n]["numel"]
                                                               for n in nonfinite)
        return GradientCheck(step, tuple(nonfinite), tuple(saturated), counts, detector=self.name, every_nan=every_nan)


class OverflowSentinel(GradientSentinel):
    """:class:`GradientSentinel` with the fp16 saturation test on (limit 65504, the fp16 max).

    Same arguments as :class:`GradientSentinel`; ``fp16_limit`` defaults to :data:`FP16_MAX`.
    Its findings are reported by the detector ``fp16_overflow``.
    """

    name = "fp16_overflow"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, fp16_limit: float = FP16_MAX,
                 scaler: Any = None, watch_outputs: Any = None, check_every: int = 1, flat_grads: bool = False):
        super().__init__(named_parameters, fp16_limit=fp16_limit, scaler=scaler, watch_outputs=watch_outputs,
                         check_every=check_every, flat_grads=flat_grads)
