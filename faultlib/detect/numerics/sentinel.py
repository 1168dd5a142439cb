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
   0-dim tensor, no pass over the gradients.
1. **GradScaler's verdict.** After ``scaler.unscale_(optimizer)`` GradScaler has checked every
   gradient for inf/NaN; the sentinel reads that result (one host read per device).
2. **GradScaler's fused kernel, run by the sentinel** (fp32 or bf16 training, or before
   ``unscale_``): ``torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf,
   inv_scale)`` with an inverse scale of 1.0, one dispatch for all gradients of a device and
   dtype (grouped as ``GradScaler._unscale_grads_`` does), one host read per device;
   ``found_inf`` is zeroed only after it trips. With an inverse scale of 1 PyTorch's CPU and
   CUDA kernels write each value back unchanged: finite and infinite values keep their bits, a
   NaN stays a NaN (bf16 may change its sign and payload bits); the version counter moves.
3. **A reduction per gradient** where the kernel does not apply (sparse gradients; gradients
   that require grad after ``backward(create_graph=True)``, which an in-place write could
   break; devices without the op): each gradient reduced to one number whose finiteness is the
   gradient's (NaN and inf propagate through sums and max-abs), the numbers added, one host
   read. CPU sums each tensor, CUDA runs one ``torch._foreach_norm``.

fp16 gradients additionally get one max-abs per tensor for the saturation test. Per-parameter
counts are computed only when the cheap pass trips.

Cost (``benchmarks/run.py``, CPU, one thread; ``benchmarks/README.md`` has the table): inside a
training loop each extra op pays ~10-25 µs of cold dispatch, so what counts is dispatches, not
bytes. On the fp32 digits MLP (a ~0.5 ms step here) the reduction pass (n+3 dispatches for n
gradients) cost ~10 % and the fused pass ~3-5 %; reusing GradScaler's verdict under AMP ~1 %.
``check_every=k`` checks one step in ``k`` for workloads where that is still too much, at a
cost in detection latency that :class:`GradientSentinel` spells out.
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass, field
from typing import Any, Iterable

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity

FP16_MAX = 65504.0  # torch.finfo(torch.float16).max; IEEE 754 binary16 largest finite value

_REQUIRES_GRAD = operator.attrgetter("requires_grad")
_GRAD = operator.attrgetter("grad")
_IS_NONE = functools.partial(operator.is_, None)  # for map(): `x is None` without a Python frame per item


@dataclass(frozen=True)
class GradientCheck:
    """Result of :meth:`GradientSentinel.check` for one step.

    Attributes:
        step: the step checked (``None`` if not given).
        nonfinite: names of parameters whose gradient holds nan or inf, in model order.
        saturated: names of fp16 parameters whose gradient reaches the fp16 limit.
        counts: ``{name: {"nan": int, "inf": int, "max_abs": float}}`` for the offenders.
        nonfinite_outputs: watched modules whose forward output held nan/inf, in the order
            their forward finished (the first is where the value surfaced first).
        detector: name of the sentinel that produced the check.
        checked: False when ``check_every`` > 1 skipped this step (nothing was looked at,
            so ``overflow`` is False and says nothing about the step).
        norm_overflow: the total norm given as ``check(total_norm=...)`` when it is not finite while every
            gradient is (it overflowed); ``None`` otherwise.
        every_nan: every gradient checked (two or more) is NaN in every element, so no parameter is where the NaN began: a
            NaN loss does this, and so does ``clip_grad_norm_`` with a NaN total norm (it multiplies every
            gradient by ``max_norm / NaN``). ``nonfinite`` then lists every parameter, and the finding names
            none of them.
    """

    step: int | None
    nonfinite: tuple[str, ...] = ()
    saturated: tuple[str, ...] = ()
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)
    nonfinite_outputs: tuple[str, ...] = ()
    detector: str = "gradient_sentinel"
    checked: bool = True
    norm_overflow: float | None = None
    every_nan: bool = False

    @property
    def overflow(self) -> bool:
        """True when the step must not be applied (non-finite values, saturated fp16 gradients, or a total norm
        that overflowed)."""
        return bool(self.nonfinite or self.saturated or self.nonfinite_outputs or self.norm_overflow is not None)

    def finding(self, detector: str | None = None) -> Finding | None:
        """The :class:`Finding` for this step, or ``None`` for a healthy (or unchecked) step."""
        detector = detector or self.detector
        if not self.overflow:
            return None
        if self.norm_overflow is not None and not self.nonfinite:
            location = {"phase": "backward"} if self.step is None else {"phase": "backward", "step": self.step}
            return Finding(detector, Severity.ERROR,
                           f"the total gradient norm is {self.norm_overflow} at step {self.step} while every gradient "
                           "is finite: it overflowed, and clipping with it scales every gradient by max_norm / inf = 0 "
                           "(the update is lost): lower the learning rate or clip per parameter",
                           location, {"total_norm": str(self.norm_overflow)},
                           kind="grad_norm_overflow")
        if self.nonfinite_outputs:
            first = self.nonfinite_outputs[0]
            location = {"module": first, "phase": "forward"}
            if self.step is not None:
                location["step"] = self.step
            return Finding(detector, Severity.ERROR,
                           f"non-finite forward output of module {first} at step {self.step}",
                           location, {"nonfinite_outputs": list(self.nonfinite_outputs),
                                      "nonfinite": list(self.nonfinite), "counts": self.counts})
        if self.every_nan:
            location = {"phase": "backward"} if self.step is None else {"phase": "backward", "step": self.step}
            return Finding(detector, Severity.ERROR,
                           f"every gradient ({len(self.nonfinite)} parameters) is NaN in every element at step "
                           f"{self.step}: the update must be skipped. No parameter is where it began: a NaN loss "
                           "does this, and so does clip_grad_norm_ with a NaN total norm (it multiplies every gradient "
                           "by max_norm / NaN). To name the parameter, check before clipping: norm = "
                           "torch.nn.utils.get_total_norm(grads); sentinel.check(step, total_norm=norm); then "
                           "torch.nn.utils.clip_grads_with_norm_(params, max_norm, norm)",
                           location, {"nonfinite": list(self.nonfinite), "counts": self.counts})
        if self.nonfinite:
            first = self.nonfinite[0]
            message = (f"non-finite gradients in {len(self.nonfinite)} parameter(s) at step {self.step}, "
                       f"first {first}: the update must be skipped")
            severity = Severity.ERROR
        else:
            first = self.saturated[0]
            message = (f"fp16 gradients at the fp16 limit {FP16_MAX:g} in {len(self.saturated)} parameter(s) "
                       f"at step {self.step}, first {first}")
            severity = Severity.WARNING
        location = {"module": first.rpartition(".")[0] or None, "phase": "backward"}
        if self.step is not None:
            location["step"] = self.step
        return Finding(detector, severity, message, {k: v for k, v in location.items() if v is not None},
                       {"nonfinite": list(self.nonfinite), "saturated": list(self.saturated),
                        "counts": self.counts})


def _healthy(step: int | None, detector: str) -> "GradientCheck":
    """A healthy :class:`GradientCheck` without the frozen dataclass's ``__init__`` (eight ``object.__setattr__``
    calls, the largest Python cost of a checked step): the fields with a plain default are the class's own
    attributes, so the instance holds only ``step``, its own empty ``counts`` and ``detector``."""
    check = object.__new__(GradientCheck)
    check.__dict__.update(step=step, counts={}, detector=detector)
    return check


class _FusedGroup:
    """Gradients of one device and dtype, checked by one call of the fused op."""

    __slots__ = ("indices", "found_inf", "inv_scale", "host")

    def __init__(self, indices: list[int] | None, found_inf: Any, inv_scale: Any):
        self.indices = indices  # positions in the step's gradient list; None: all of them
        self.found_inf = found_inf  # shared by the groups of one device, as in GradScaler
        self.inv_scale = inv_scale
        # on CPU a NumPy view of found_inf: reading it is a memory load, not a torch dispatch
        self.host = None
        if found_inf.device.type == "cpu":
            try:
                self.host = found_inf.numpy()
            except (RuntimeError, TypeError):  # torch built without NumPy
                self.host = None

    def found(self) -> bool:
        """Read the flag (a host read on an accelerator) and clear it if it was set."""
        host = self.host
        if not (host[0] if host is not None else self.found_inf.item()):
            return False
        self.found_inf.zero_()
        return True


class _FusedPlan:
    """How one layout of gradients goes through the fused op: its groups and per-device flags.

    An empty plan means the op does not apply (a sparse or non-floating-point gradient).
    """

    __slots__ = ("groups", "flags")

    def __init__(self, groups: list[_FusedGroup]):
        self.groups = groups
        self.flags = list({id(g.found_inf): g for g in groups}.values())  # one group per device

    @classmethod
    def build(cls, tensors: list[Any]) -> "_FusedPlan":
        import torch

        by_key: dict[tuple[Any, Any], list[int]] = {}
        for i, g in enumerate(tensors):
            if g.layout != torch.strided or not g.is_floating_point():
                return cls([])
            by_key.setdefault((g.device, g.dtype), []).append(i)
        per_device: dict[Any, tuple[Any, Any]] = {}
        groups = []
        for (device, _dtype), indices in by_key.items():
            if device not in per_device:
                per_device[device] = (torch.zeros(1, dtype=torch.float32, device=device),
                                      torch.ones(1, dtype=torch.float32, device=device))
            groups.append(_FusedGroup(None if len(by_key) == 1 else indices, *per_device[device]))
        return cls(groups)


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
        DetectorError: no parameters were given, or ``check_every`` is not an integer >= 1.
    """

    name = "gradient_sentinel"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, fp16_limit: float | None = None,
                 scaler: Any = None, watch_outputs: Any = None, check_every: int = 1):
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
        self._fused_plans: dict[tuple[int, ...] | None, _FusedPlan] = {}
        self._fast: _FusedGroup | None = None  # the plan of the all-gradients layout, when it is one group
        self._fused_op = torch._amp_foreach_non_finite_check_and_unscale_
        self._output_flags: list[tuple[str, Any]] = []
        self._hooks = []
        if watch_outputs is not None:
            for module_name, module in watch_outputs.named_modules():
                if module_name:
                    self._hooks.append(module.register_forward_hook(self._output_hook(module_name)))

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
                (``norm_overflow``).

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
        if total_norm is None:
            if self._fast is not None and (optimizer is None or self.scaler is None):
                found = self.tripped()  # the common step: one fused kernel, one flag read
                if found is False:
                    return _healthy(step, self.name)
                if found:
                    self.overflow_steps += 1
                    return self._explain(step, None)
        elif not self._output_flags and self.fp16_limit is None:
            norm = float(total_norm)
            if math.isfinite(norm):
                return _healthy(step, self.name)
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
        fast = self._fast
        if fast is None or self._output_flags:
            return None
        every = list(map(_GRAD, self._tensors))
        try:
            if any(map(_REQUIRES_GRAD, every)):  # backward(create_graph=True): leave the gradients alone
                return None
            self._fused_op(every, fast.found_inf, fast.inv_scale)
        except AttributeError:  # a parameter without a gradient this step (None has no requires_grad)
            return None
        except RuntimeError:  # a parameter moved to another device: rebuild the plan
            fast.found_inf.zero_()
            self._fast = None
            self._fused_plans.pop(None, None)
            return None
        host = fast.host
        if host is not None and not host[0]:
            return False
        return fast.found()

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
                plan = self._fused_plans[present] = _FusedPlan.build(tensors)
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
                    self._fused_plans[present] = _FusedPlan([])
                plan = None
                continue
            if present is None and len(plan.groups) == 1 and self.fp16_limit is None:
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
        every_nan = len(nonfinite) == len(indices) > 1 and all(counts[n]["nan"] == counts[n]["numel"] for n in nonfinite)
        return GradientCheck(step, tuple(nonfinite), tuple(saturated), counts, detector=self.name, every_nan=every_nan)


class OverflowSentinel(GradientSentinel):
    """:class:`GradientSentinel` with the fp16 saturation test on (limit 65504, the fp16 max).

    Same arguments as :class:`GradientSentinel`; ``fp16_limit`` defaults to :data:`FP16_MAX`.
    Its findings are reported by the detector ``fp16_overflow``.
    """

    name = "fp16_overflow"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, fp16_limit: float = FP16_MAX,
                 scaler: Any = None, watch_outputs: Any = None, check_every: int = 1):
        super().__init__(named_parameters, fp16_limit=fp16_limit, scaler=scaler, watch_outputs=watch_outputs,
                         check_every=check_every)
