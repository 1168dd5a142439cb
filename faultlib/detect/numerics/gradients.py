"""Exploding gradients: detect them from the norm history, and show what each clipping hides.

:class:`ExplodingGradientDetector` keeps the global gradient norm and every parameter's norm
per step (one ``torch._foreach_norm`` call and one host read) and fires when the global norm
exceeds ``ratio`` times its running median (a robust baseline: one spike does not move it);
the finding names the parameter whose norm grew most against its own median. Per-parameter
norms alone are too noisy to fire on (a bias with a tiny norm jumps 10x in healthy training).

:func:`compare_clipping` tells, for the gradients of one step, what
``torch.nn.utils.clip_grad_norm_`` (one global norm, Pascanu et al. 2013,
https://arxiv.org/abs/1211.5063) and per-parameter clipping (each parameter's norm capped on
its own) would do. When one parameter explodes they fail differently:

* global clipping rescales *every* gradient by ``max_norm / global_norm``: the exploding
  parameter dominates the global norm, so the healthy parameters' updates shrink by the same
  huge factor and learning silently stalls for the whole model; the step looks normal-sized;
* per-parameter clipping caps only the exploding parameter: the rest train normally, but the
  total update no longer shows the explosion, and the capped gradient keeps the faulty direction.
"""

from __future__ import annotations

import math
import statistics
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity


@dataclass(frozen=True)
class GradientNorms:
    """Norms of one step: ``global_norm`` (L2 over all gradients) and ``norms`` per parameter name."""

    step: int | None
    global_norm: float
    norms: dict[str, float]


@dataclass(frozen=True)
class ClippingComparison:
    """What each clipping strategy does to one step's gradients (norms are L2).

    Attributes:
        max_norm: the clipping threshold used for both strategies.
        global_scale: the factor ``clip_grad_norm_`` multiplies every gradient by (<= 1).
        per_parameter_scale: the factor per-parameter clipping applies to each parameter.
        kept_by_global / kept_by_per_parameter: fraction of each parameter's gradient norm left.
        exploding: parameters whose norm alone exceeds ``max_norm``.
    """

    max_norm: float
    global_norm: float
    global_scale: float
    per_parameter_scale: dict[str, float]
    exploding: tuple[str, ...]
    healthy_kept_by_global: float
    healthy_kept_by_per_parameter: float
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"max_norm": self.max_norm, "global_norm": self.global_norm, "global_scale": self.global_scale,
                "per_parameter_scale": self.per_parameter_scale, "exploding": list(self.exploding),
                "healthy_kept_by_global": self.healthy_kept_by_global,
                "healthy_kept_by_per_parameter": self.healthy_kept_by_per_parameter, "notes": list(self.notes)}


def gradient_norms(named_parameters: Iterable[tuple[str, Any]], step: int | None = None) -> GradientNorms:
    """L2 norm of every present gradient and the global norm, with one host read."""
    import torch

    items = [(n, p.grad) for n, p in named_parameters if p.grad is not None]
    if not items:
        raise DetectorError("no gradients: call loss.backward() before measuring gradient norms")
    norms = torch.stack([n.float() for n in torch._foreach_norm([g for _, g in items], 2.0)]).tolist()
    global_norm = math.sqrt(sum(v * v for v in norms)) if all(math.isfinite(v) for v in norms) else math.inf
    return GradientNorms(step, global_norm, {name: v for (name, _), v in zip(items, norms)})


def compare_clipping(norms: GradientNorms, max_norm: float) -> ClippingComparison:
    """Compare ``clip_grad_norm_(max_norm)`` with per-parameter clipping at the same ``max_norm``.

    Pure arithmetic on the norms: the gradients are not modified.
    """
    if max_norm <= 0:
        raise DetectorError("max_norm must be > 0")
    eps = 1e-6  # clip_grad_norm_ divides by (total_norm + 1e-6)
    global_scale = min(1.0, max_norm / (norms.global_norm + eps))
    per_param = {n: min(1.0, max_norm / (v + eps)) for n, v in norms.norms.items()}
    exploding = tuple(n for n, v in norms.norms.items() if v > max_norm)
    healthy = [n for n in norms.norms if n not in exploding]
    notes = []
    if exploding and healthy:
        notes.append(f"global clipping shrinks every healthy gradient by {global_scale:.3g}x because of "
                     f"{', '.join(exploding)}: learning stalls for the whole model while the step looks normal")
        notes.append(f"per-parameter clipping caps {', '.join(exploding)} only; the total update no longer shows "
                     "the explosion and the capped gradient keeps its faulty direction")
    return ClippingComparison(max_norm, norms.global_norm, global_scale, per_param, exploding,
                              healthy_kept_by_global=global_scale if healthy else 1.0,
                              healthy_kept_by_per_parameter=min((per_param[n] for n in healthy), default=1.0),
                              notes=tuple(notes))


class ExplodingGradientDetector:
    """Fires when the global or a parameter's gradient norm jumps far above its own history.

    Args:
        named_parameters: ``model.named_parameters()``.
        ratio: a global norm above ``ratio`` x its running median is an explosion (default 10).
        window: steps of history in the median (default 50).
        warmup: steps before the detector may fire (default 10: early training is noisy).

    Call :meth:`observe` after ``loss.backward()`` and before clipping / ``optimizer.step``.
    ``history`` keeps ``(step, global_norm, {name: norm})`` for the evidence.

    Severity: a finding is an ``error`` (and the exploding_gradient case is ``severity: error``
    to match). Past ``ratio`` times its own running median the step's update is wrong whatever
    the caller does next: applied as is, it throws the layer off (and can turn the weights
    non-finite); under ``clip_grad_norm_`` it silently stops the whole model learning; under
    per-parameter clipping it pushes the layer in the faulty direction. The step must be
    skipped or investigated, which is what ``error`` means in faultlib (``warning`` is for a
    heuristic the step can live with, e.g. fp16 gradients at the fp16 limit).
    """

    name = "exploding_gradient"

    def __init__(self, named_parameters: Iterable[tuple[str, Any]], *, ratio: float = 10.0, window: int = 50,
                 warmup: int = 10):
        self.params = [(n, p) for n, p in named_parameters if p.requires_grad]
        if not self.params:
            raise DetectorError("ExplodingGradientDetector needs parameters: pass model.named_parameters()")
        if ratio <= 1 or window < 1 or warmup < 1:
            raise DetectorError("need ratio > 1, window >= 1, warmup >= 1")
        self.ratio, self.window, self.warmup = ratio, window, warmup
        self._global: deque[float] = deque(maxlen=window)
        self._per: dict[str, deque[float]] = {n: deque(maxlen=window) for n, _ in self.params}
        self.history: list[GradientNorms] = []
        self.steps_seen = 0

    def observe(self, step: int | None = None) -> tuple[GradientNorms, Finding | None]:
        """Measure this step's norms; return them and a :class:`Finding` when they exploded.

        An exploded step is not added to the baseline, so a burst keeps firing.
        """
        norms = gradient_norms(self.params, step)
        self.history.append(norms)
        self.steps_seen += 1
        finding = None
        if self.steps_seen > self.warmup and self._global:
            baseline = statistics.median(self._global)
            ratios = {n: v / max(statistics.median(self._per[n]), 1e-12)
                      for n, v in norms.norms.items() if self._per.get(n)}
            worst = max(ratios, key=ratios.get) if ratios else None
            global_ratio = norms.global_norm / max(baseline, 1e-12)
            if global_ratio > self.ratio:
                module = worst.rpartition(".")[0] if worst else None
                location = {"step": step, "phase": "backward", "module": module or None}
                finding = Finding(
                    self.name, Severity.ERROR,
                    f"gradient norm exploded at step {step}: global {norms.global_norm:.3g} is {global_ratio:.3g}x "
                    f"its median {baseline:.3g}; worst parameter {worst} at {ratios.get(worst, 0):.3g}x its median",
                    {k: v for k, v in location.items() if v is not None},
                    {"global_norm": norms.global_norm, "global_median": baseline, "global_ratio": global_ratio,
                     "parameter": worst, "parameter_ratio": ratios.get(worst), "norms": norms.norms})
        if finding is None and math.isfinite(norms.global_norm):
            self._global.append(norms.global_norm)
            for n, v in norms.norms.items():
                self._per[n].append(v)
        return norms, finding
