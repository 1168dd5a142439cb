"""A circuit breaker on top of ``torch.amp.GradScaler`` for repeated fp16 overflow.

GradScaler alone handles an isolated overflow well: it skips the step and halves the loss
scale. It handles a *persistent* overflow badly: an activation that no longer fits fp16
overflows whatever the scale, so every step is skipped and the scale halves each time
(65536 → 256 in 8 steps), after which healthy steps underflow their gradients. The breaker:

* **2 consecutive overflow steps** (``consecutive_limit``): the update stays skipped and the
  scale is set back to 65536 (``reset_scale``, GradScaler's default ``init_scale``) instead of
  collapsing. GradScaler has halved it on each overflow, so this usually *raises* the scale
  (16384 → 65536), and the findings say so in those words; a short back-off
  (``backoff_steps``) keeps it from resetting every step.
* **5 overflow steps within 100** (``window_limit`` / ``window_steps``): the fault is not
  transient; fall back to fp32 (``amp_enabled`` becomes False) so training makes progress
  through the region fp16 cannot represent.
* **back to AMP** after ``stable_steps`` consecutive finite fp32 steps whose loss stays within
  ``stable_ratio`` × the median loss of the last healthy AMP steps.

Thresholds follow the defaults of faultlib's fp16_overflow case; GradScaler's own
behaviour is documented in ``torch/amp/grad_scaler.py`` (PyTorch).
"""

from __future__ import annotations

import enum
import statistics
from collections import deque
from dataclasses import dataclass
from typing import Any

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity


class BreakerAction(str, enum.Enum):
    NONE = "none"            # healthy step
    SKIPPED = "skipped"      # overflow: the update was (or must be) skipped
    RESET_SCALE = "reset_scale"  # the scale set back to ``reset_scale`` (usually a raise: see the module doc)
    FALLBACK_FP32 = "fallback_fp32"
    RESUME_AMP = "resume_amp"


@dataclass(frozen=True)
class BreakerDecision:
    """What the breaker decided after one step; ``finding`` is set when it tripped or recovered."""

    step: int
    action: BreakerAction
    amp_enabled: bool
    loss_scale: float | None
    finding: Finding | None = None


class OverflowCircuitBreaker:
    """Decides, step by step, whether to keep fp16 AMP, reset the loss scale, or fall back to fp32.

    Args:
        scaler: the ``torch.amp.GradScaler`` in use (its scale is reset through ``update(new_scale=)``).
        consecutive_limit: consecutive overflow steps that reset the scale (default 2).
        window_limit: overflow steps within ``window_steps`` that trigger fp32 fallback (default 5).
        window_steps: length of that window in steps (default 100).
        reset_scale: loss scale to reset to (default 65536.0 = 2**16, GradScaler's init_scale).
        backoff_steps: steps after a reset during which no further reset happens (default 10).
        stable_steps: consecutive healthy fp32 steps before returning to AMP (default 20).
        stable_ratio: a loss above ``stable_ratio`` × the reference median is not stable (default 2.0).

    Call order per step: forward/backward/``scaler.step``/``scaler.update`` (or the fp32
    equivalent when :attr:`amp_enabled` is False), then :meth:`record`.
    """

    name = "amp_circuit_breaker"

    def __init__(self, scaler: Any, *, consecutive_limit: int = 2, window_limit: int = 5, window_steps: int = 100,
                 reset_scale: float = 65536.0, backoff_steps: int = 10, stable_steps: int = 20,
                 stable_ratio: float = 2.0):
        if consecutive_limit < 1 or window_limit < consecutive_limit or window_steps < window_limit:
            raise DetectorError("need 1 <= consecutive_limit <= window_limit <= window_steps")
        self.scaler = scaler
        self.consecutive_limit = consecutive_limit
        self.window_limit = window_limit
        self.window_steps = window_steps
        self.reset_scale = float(reset_scale)
        self.backoff_steps = backoff_steps
        self.stable_steps = stable_steps
        self.stable_ratio = stable_ratio
        self.amp_enabled = True
        self.consecutive = 0
        self.overflows: deque[int] = deque()
        self.healthy_losses: deque[float] = deque(maxlen=50)
        self.stable_count = 0
        self.no_reset_before = -1
        self.resets = 0
        self.fallbacks = 0
        self.resumes = 0
        self._last_step: int | None = None

    def _scale(self) -> float | None:
        return float(self.scaler.get_scale()) if self.scaler is not None and self.scaler.is_enabled() else None

    def record(self, step: int, *, overflow: bool, loss: float) -> BreakerDecision:
        """Record the outcome of ``step``.

        Args:
            step: the step index (must increase).
            overflow: the step's gradients overflowed (e.g. ``OverflowSentinel.check().overflow``).
            loss: the step's loss as a Python float (may be nan/inf).

        Returns:
            A :class:`BreakerDecision`; its ``finding`` says what the breaker changed, with the
            loss scale before and after (``evidence.scale_before`` / ``scale_after``, and
            ``scale_change``: ``raised``, ``lowered`` or ``unchanged``).

        Raises:
            DetectorError: steps not increasing.
        """
        if self._last_step is not None and step <= self._last_step:
            raise DetectorError(f"record() got step {step} after step {self._last_step}: steps must increase")
        if self._last_step is not None and step != self._last_step + 1:
            self.consecutive = 0  # unrecorded steps in between: not consecutive
        self._last_step = step
        while self.overflows and self.overflows[0] <= step - self.window_steps:
            self.overflows.popleft()
        if overflow:
            self.overflows.append(step)
            self.consecutive += 1
            self.stable_count = 0
        else:
            self.consecutive = 0
        if self.amp_enabled:
            return self._amp_step(step, overflow, loss)
        return self._fp32_step(step, overflow, loss)

    def _decision(self, step, action, finding=None) -> BreakerDecision:
        return BreakerDecision(step, action, self.amp_enabled, self._scale(), finding)

    def _amp_step(self, step: int, overflow: bool, loss: float) -> BreakerDecision:
        if not overflow:
            self.healthy_losses.append(loss)
            return self._decision(step, BreakerAction.NONE)
        if len(self.overflows) >= self.window_limit:
            self.amp_enabled = False
            self.fallbacks += 1
            before = self._scale()
            self._reset()
            after = self._scale()
            self.stable_count = 0
            scale = f"; {_scale_change(before, after)} for the return to AMP" if before is not None else ""
            return self._decision(step, BreakerAction.FALLBACK_FP32, Finding(
                self.name, Severity.ERROR,
                f"{len(self.overflows)} overflow steps within {self.window_steps}: falling back to fp32 "
                f"until the loss is stable for {self.stable_steps} steps{scale}",
                {"step": step}, {"overflow_steps": list(self.overflows), "loss_scale": after,
                                 "scale_before": before, "scale_after": after,
                                 "scale_change": _direction(before, after)}))
        if self.consecutive >= self.consecutive_limit and step >= self.no_reset_before:
            before = self._scale()
            self._reset()
            after = self._scale()
            self.resets += 1
            self.no_reset_before = step + self.backoff_steps
            if before is None:
                scale = "no enabled GradScaler, so no loss scale to reset"
            else:
                target = ("the initial scale" if self.reset_scale == getattr(self.scaler, "_init_scale", None)
                          else "reset_scale")
                scale = (f"{_scale_change(before, after)} (reset to {target} after {self.consecutive_limit} "
                         "consecutive overflows, instead of halving again)")
            return self._decision(step, BreakerAction.RESET_SCALE, Finding(
                self.name, Severity.WARNING,
                f"{self.consecutive} consecutive overflow steps: update skipped; {scale}",
                {"step": step}, {"consecutive": self.consecutive, "scale_before": before,
                                 "scale_after": after, "scale_change": _direction(before, after)}))
        return self._decision(step, BreakerAction.SKIPPED)

    def _fp32_step(self, step: int, overflow: bool, loss: float) -> BreakerDecision:
        if overflow:
            return self._decision(step, BreakerAction.SKIPPED)
        reference = statistics.median(self.healthy_losses) if self.healthy_losses else loss
        if loss <= self.stable_ratio * reference:
            self.stable_count += 1
        else:
            self.stable_count = 0
        if self.stable_count >= self.stable_steps:
            self.amp_enabled = True
            self.resumes += 1
            self.overflows.clear()
            self.consecutive = 0
            return self._decision(step, BreakerAction.RESUME_AMP, Finding(
                self.name, Severity.INFO,
                f"loss stable for {self.stable_steps} fp32 steps (<= {self.stable_ratio:g}x median "
                f"{reference:.4g}): back to fp16 AMP", {"step": step}, {"loss": loss, "reference": reference}))
        return self._decision(step, BreakerAction.NONE)

    def _reset(self) -> None:
        if self.scaler is not None and self.scaler.is_enabled():
            import torch

            self.scaler.scale(torch.ones(()))  # GradScaler creates its scale tensor lazily on first scale()
            self.scaler.update(new_scale=self.reset_scale)


def _direction(before: float | None, after: float | None) -> str | None:
    """``raised``, ``lowered`` or ``unchanged``; None without a scale."""
    if before is None or after is None:
        return None
    return "raised" if after > before else "lowered" if after < before else "unchanged"


def _scale_change(before: float, after: float | None) -> str:
    """What a reset did to the loss scale, in words that show the direction:
    ``raised the loss scale from 16384 to 65536`` (a "reset" that hides an increase misleads)."""
    direction = _direction(before, after)
    if direction == "unchanged":
        return f"kept the loss scale at {before:g}"
    return f"{direction} the loss scale from {before:g} to {after:g}"
