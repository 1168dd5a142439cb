"""What one step's gradient check found: :class:`GradientCheck`, the result of
:meth:`faultlib.detect.numerics.sentinel.GradientSentinel.check`, and its :class:`~faultlib.findings.Finding`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib.findings import Finding, Severity

FP16_MAX = 65504.0  # torch.finfo(torch.float16).max; IEEE 754 binary16 largest finite value


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
        every_nan: every gradient checked (two or more) is NaN in every element, so no parameter is where the
            NaN began: a NaN loss does this, and so does ``clip_grad_norm_`` with a NaN total norm (it multiplies
            every gradient by ``max_norm / NaN``). ``nonfinite`` then lists every parameter, and the finding names
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


def healthy_check(step: int | None, detector: str) -> GradientCheck:
    """A healthy :class:`GradientCheck` without the frozen dataclass's ``__init__`` (eight ``object.__setattr__``
    calls, the largest Python cost of a checked step): the fields with a plain default are the class's own
    attributes, so the instance holds only ``step``, its own empty ``counts`` and ``detector`` (one dict, set as
    the instance's ``__dict__``)."""
    check = object.__new__(GradientCheck)
    object.__setattr__(check, "__dict__", {"step": step, "counts": {}, "detector": detector})
    return check
