"""FP16 overflow sentinel: one fused pass over every gradient per step.

Two tests, each only where it means something:

* **non-finite** (``inf``/``nan``) in any gradient, whatever its dtype: the signature of an
  overflow in an fp16 forward or backward (GradScaler skips such steps silently);
* **fp16 saturation**: a max-abs value at or above the fp16 limit 65504
  (``torch.finfo(torch.float16).max``) *in gradients that are themselves fp16*. fp32
  gradients of a scaled loss legitimately exceed 65504 (a loss scale of 65536 times a
  gradient of 1), so testing them against the fp16 limit would be a false alarm that the
  control run exposes.

Cost: the fast path is one ``torch._foreach_norm(grads, inf)`` per dtype group (the same
fused kernel ``torch.nn.utils.clip_grad_norm_`` uses), a ``stack``, and one host read.
NaN propagates through max-abs, so a single reduction per tensor catches both NaN and inf.
Per-parameter counts are computed only when the fast path trips.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity

FP16_MAX = 65504.0  # torch.finfo(torch.float16).max; IEEE 754 binary16 largest finite value


@dataclass(frozen=True)
class GradientCheck:
    """Result of :meth:`OverflowSentinel.check` for one step.

    Attributes:
        step: the step checked (``None`` if not given).
        nonfinite: names of parameters whose gradient holds nan or inf, in model order.
        saturated: names of fp16 parameters whose gradient reaches the fp16 limit.
        counts: ``{name: {"nan": int, "inf": int, "max_abs": float}}`` for the offenders.
    """

    step: int | None
    nonfinite: tuple[str, ...] = ()
    saturated: tuple[str, ...] = ()
    counts: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def overflow(self) -> bool:
        """True when the step must not be applied (non-finite or saturated fp16 gradients)."""
        return bool(self.nonfinite or self.saturated)

    def finding(self, detector: str = "fp16_overflow") -> Finding | None:
        """The :class:`Finding` for this step, or ``None`` for a healthy step."""
        if not self.overflow:
            return None
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


class OverflowSentinel:
    """Checks all gradients of a model after backward, before the optimizer step.

    Args:
        named_parameters: ``model.named_parameters()`` (or any iterable of (name, Parameter)).
        fp16_limit: saturation threshold for fp16 gradients, default 65504 (fp16 max).

    Call order: ``loss.backward()`` (and ``scaler.unscale_(optimizer)`` if a GradScaler is
    used, so ``counts`` show unscaled values), then :meth:`check`, then ``optimizer.step``.

    Raises:
        DetectorError: no parameters were given.
    """

    name = "fp16_overflow"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, fp16_limit: float = FP16_MAX):
        self.params = [(n, p) for n, p in named_parameters if p.requires_grad]
        if not self.params:
            raise DetectorError("OverflowSentinel needs parameters that require grad: pass model.named_parameters()")
        self.fp16_limit = float(fp16_limit)
        self.steps_checked = 0
        self.overflow_steps = 0

    def check(self, step: int | None = None) -> GradientCheck:
        """Check every gradient present now.

        Returns:
            A :class:`GradientCheck`; ``.overflow`` tells whether to skip the update.

        Raises:
            DetectorError: called before any backward (no gradient at all).
        """
        import torch

        self.steps_checked += 1
        groups: dict[Any, list[tuple[str, Any]]] = {}
        for name, p in self.params:
            if p.grad is not None:
                groups.setdefault(p.grad.dtype, []).append((name, p.grad))
        if not groups:
            raise DetectorError("OverflowSentinel.check() found no gradients: call loss.backward() first")
        maxes = {dtype: torch.stack(torch._foreach_norm([g for _, g in items], math.inf))
                 for dtype, items in groups.items()}
        trips = [(~torch.isfinite(m)).any() for m in maxes.values()]
        if torch.float16 in maxes:
            trips.append((maxes[torch.float16] >= self.fp16_limit).any())
        tripped = torch.stack(trips).any().item() if len(trips) > 1 else trips[0].item()
        if not tripped:
            return GradientCheck(step)
        self.overflow_steps += 1
        return self._explain(step, groups, maxes)

    def _explain(self, step, groups, maxes) -> GradientCheck:
        import torch

        order = {name: i for i, (name, _) in enumerate(self.params)}
        nonfinite, saturated, counts = [], [], {}
        for dtype, items in groups.items():
            for (name, grad), max_abs in zip(items, maxes[dtype].tolist()):
                bad = not math.isfinite(max_abs)
                sat = dtype == torch.float16 and not bad and max_abs >= self.fp16_limit
                if bad or sat:
                    (nonfinite if bad else saturated).append(name)
                    counts[name] = {"nan": int(torch.isnan(grad).sum()), "inf": int(torch.isinf(grad).sum()),
                                    "max_abs": max_abs if math.isfinite(max_abs) else str(max_abs),
                                    "dtype": str(dtype).replace("torch.", ""), "numel": grad.numel()}
        nonfinite.sort(key=order.get)
        saturated.sort(key=order.get)
        return GradientCheck(step, tuple(nonfinite), tuple(saturated), counts)
