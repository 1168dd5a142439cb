"""GradScaler and mixed-precision misuse at run time: faults where usually nothing is non-finite.

:class:`GradScalerAudit` wraps one ``torch.amp.GradScaler`` (its ``scale``, ``unscale_``, ``step`` and
``update``) and, while installed, ``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_``. Kinds:

- ``clip_scaled_gradients``: gradient clipping between ``scaler.scale(loss).backward()`` and
  ``scaler.step`` with the optimizer not unscaled (``scaler.unscale_(optimizer)`` missing or after the
  clip). The gradients are multiplied by the loss scale S (65536 by default), so the effective
  threshold is ``max_norm / S``: every step is clipped to a tiny update and learning nearly stops
  (PyTorch AMP examples, "Working with Unscaled Gradients");
- ``step_without_scaled_backward``: ``scaler.step(optimizer)`` with no backward through
  ``scaler.scale(loss)`` since the last ``update()``: ``step`` divides unscaled gradients by S;
- ``fp16_master_weights``: the optimizer holds float16 (or bfloat16) parameters under an enabled GradScaler:
  ``unscale_`` refuses fp16 gradients ("Attempting to unscale FP16 gradients"), and updates smaller
  than the weight's resolution are lost; autocast wants float32 master weights;
- ``eps_underflow``: an optimizer's ``eps`` rounds to 0 in its parameters' dtype (1e-8 in float16): a
  parameter whose second moment is 0 divides by 0. Reported whether or not the scaler is enabled (a
  ``GradScaler(enabled=dtype == "float16")`` switched off beside float16 parameters still trains them).

Whether an optimizer was unscaled is read from the scaler's own per-optimizer stage (what
``GradScaler.step`` itself consults), so an ``unscale_`` that did not happen is not counted. Each
finding names the user's call site (the first frame outside torch and faultlib) and the fix; one
finding per kind and call site, with the number of times it happened and the first step.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

from faultlib.findings import Finding, Severity

DETECTOR = "gradscaler"
KINDS = {
    "clip_scaled_gradients": "gradients clipped while still multiplied by the loss scale (no scaler.unscale_ "
                             "first): the effective max_norm is max_norm / scale and learning stalls",
    "step_without_scaled_backward": "scaler.step(optimizer) without a backward through scaler.scale(loss): step "
                                    "divides unscaled gradients by the loss scale",
    "fp16_master_weights": "the optimizer holds float16/bfloat16 parameters under a GradScaler (master weights "
                           "must be float32)",
    "eps_underflow": "an optimizer's eps is 0 in its parameters' dtype",
}
FIX = {
    "clip_scaled_gradients": "call scaler.unscale_(optimizer) after scaler.scale(loss).backward() and before "
                             "clipping",
    "step_without_scaled_backward": "backward through the scaled loss: scaler.scale(loss).backward()",
    "fp16_master_weights": "keep the model in float32 and let torch.autocast run the ops in float16",
    "eps_underflow": "keep float32 master weights (torch.autocast runs the ops in float16), or an eps at or above the "
                     "dtype's smallest normal number (6.1e-05 in float16; 1e-4 is usual for float16 Adam)",
}
_SKIP = (os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep,)
_CLIPS = ("clip_grad_norm_", "clip_grad_value_")


def call_site(depth: int = 1) -> dict[str, Any]:
    """``{file, line, function}`` of the first frame outside torch and faultlib (``{}`` when none)."""
    import torch

    skip = (*_SKIP, os.path.dirname(torch.__file__) + os.sep)
    frame = sys._getframe(depth)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(skip):
            return {"file": path, "line": frame.f_lineno, "function": frame.f_code.co_name}
        frame = frame.f_back
    return {}


@dataclass
class _Record:
    kind: str
    severity: Severity
    message: str
    location: dict[str, Any]
    evidence: dict[str, Any]
    count: int = 1


@dataclass
class GradScalerAudit:
    """Audit one GradScaler's use (see the module docstring for the kinds).

    Life cycle: construct (installs the wrappers), train, read :meth:`findings`, :meth:`close` (removes
    them); or use it as a context manager. The wrappers add a few Python calls per step and one tensor
    hook per ``scale()``; nothing is synchronised with the device.

    Args:
        scaler: the ``torch.amp.GradScaler`` (or ``torch.cuda.amp.GradScaler``) to audit.
        optimizers: optimizers to check at once (dtype, eps); others are checked the first time
            ``scaler.unscale_``/``scaler.step`` sees them.
        repair: the mitigation for ``clip_scaled_gradients``: clip scaled gradients with the threshold
            multiplied by the loss scale, which clips exactly as unscaling first would (a norm and every
            value scale linearly), still reporting the call. Settable at any time.
        patch_clips: wrap ``torch.nn.utils.clip_grad_norm_``/``clip_grad_value_`` (default True). A caller that
            already wraps them from before the script runs (``faultlib trace``: a script's
            ``from torch.nn.utils import clip_grad_norm_`` binds the function present at import time, before any
            GradScaler exists) passes False and calls :meth:`check_clip` from its own wrappers.

    Attributes:
        step: the number of ``scaler.update()`` calls so far (the step a finding is located at).
        repaired: clip calls whose threshold ``repair`` scaled.
    """

    scaler: Any
    optimizers: Iterable[Any] = ()
    repair: bool = False
    patch_clips: bool = True
    step: int = field(default=0, init=False)
    repaired: int = field(default=0, init=False)
    _records: dict[tuple, _Record] = field(default_factory=dict, init=False, repr=False)
    _known: dict[int, Any] = field(default_factory=dict, init=False, repr=False)
    _unscaled: set[int] = field(default_factory=set, init=False, repr=False)
    _scaled_backward: bool = field(default=False, init=False, repr=False)
    _originals: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _clip_originals: list[tuple[Any, str, Any]] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        import torch

        for opt in list(self.optimizers):
            self._learn(opt)
        for method in ("scale", "unscale_", "step", "update"):
            self._originals[method] = getattr(self.scaler, method)
            setattr(self.scaler, method, getattr(self, f"_{method.rstrip('_')}"))
        for module in (torch.nn.utils, torch.nn.utils.clip_grad) if self.patch_clips else ():
            for name in _CLIPS:
                original = getattr(module, name, None)
                if original is not None:
                    self._clip_originals.append((module, name, original))
                    setattr(module, name, self._clip_wrapper(original, name))

    # -- life cycle -----------------------------------------------------------------------------------
    def close(self) -> None:
        """Remove every wrapper (idempotent)."""
        for method in list(self._originals):
            self.scaler.__dict__.pop(method, None)
        self._originals.clear()
        while self._clip_originals:
            module, name, original = self._clip_originals.pop()
            setattr(module, name, original)

    def forget_findings(self) -> None:
        """Drop the findings recorded so far and audit on (a fork's copy of the audit: what it recorded before the
        fork is its parent's; the wrappers, perhaps bound to names by the script, keep recording)."""
        self._records.clear()

    def __enter__(self) -> "GradScalerAudit":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def findings(self) -> list[Finding]:
        """One finding per kind and call site, with ``count`` and ``first_step`` in its evidence."""
        return [Finding(DETECTOR, r.severity, r.message, dict(r.location), {**r.evidence, "count": r.count,
                                                                             "fix": FIX[r.kind]}, kind=r.kind)
                for r in self._records.values()]

    # -- recording ------------------------------------------------------------------------------------
    def _record(self, kind: str, severity: Severity, message: str, site: dict[str, Any], **evidence: Any) -> None:
        key = (kind, site.get("file"), site.get("line"), evidence.get("parameter_dtype"))
        if key in self._records:
            self._records[key].count += 1
            return
        self._records[key] = _Record(kind, severity, f"{message}; fix: {FIX[kind]}", {**site, "step": self.step},
                                     {**evidence, "first_step": self.step})

    def _learn(self, optimizer: Any) -> None:
        import torch

        if id(optimizer) in self._known:
            return
        self._known[id(optimizer)] = optimizer
        site = call_site()
        for index, group in enumerate(optimizer.param_groups):
            dtypes = {p.dtype for p in group["params"]}
            for dtype in sorted(dtypes & {torch.float16, torch.bfloat16} if self.scaler.is_enabled() else (), key=str):
                self._record("fp16_master_weights", Severity.ERROR,
                             f"{type(optimizer).__name__} param group {index} holds {str(dtype)[6:]} parameters "
                             "under a GradScaler: unscale_ refuses fp16 gradients and small updates are lost",
                             site, group=index, parameter_dtype=str(dtype)[6:])
            eps = group.get("eps")
            if isinstance(eps, float) and eps > 0:
                for dtype in sorted(dtypes, key=str):
                    if dtype.is_floating_point and float(torch.tensor(eps, dtype=dtype)) == 0.0:
                        self._record("eps_underflow", Severity.ERROR,
                                     f"{type(optimizer).__name__} param group {index}: eps={eps:g} is 0 in "
                                     f"{str(dtype)[6:]}: a zero second moment divides by 0 (NaN); its smallest "
                                     f"normal number is {torch.finfo(dtype).tiny:.2g}", site, group=index,
                                     eps=eps, parameter_dtype=str(dtype)[6:], smallest_normal=torch.finfo(dtype).tiny)

    def _is_unscaled(self, optimizer: Any) -> bool:
        states = getattr(self.scaler, "_per_optimizer_states", None)
        if isinstance(states, dict):  # a defaultdict, emptied by update(): absent means not unscaled yet
            stage = states[id(optimizer)].get("stage") if id(optimizer) in states else None
            return getattr(stage, "name", "") == "UNSCALED"
        return id(optimizer) in self._unscaled

    def _owners(self, params: list[Any]) -> list[Any]:
        ids = {id(p) for p in params}
        return [opt for opt in self._known.values()
                if any(id(p) in ids for group in opt.param_groups for p in group["params"])]

    # -- wrappers -------------------------------------------------------------------------------------
    def _scale(self, outputs: Any) -> Any:
        scaled = self._originals["scale"](outputs)
        for tensor in (scaled if isinstance(scaled, (list, tuple)) else [scaled]):
            if getattr(tensor, "requires_grad", False):
                tensor.register_hook(self._on_backward)
        return scaled

    def _on_backward(self, grad: Any) -> None:
        self._scaled_backward = True

    def _unscale(self, optimizer: Any) -> Any:
        self._learn(optimizer)
        result = self._originals["unscale_"](optimizer)
        self._unscaled.add(id(optimizer))
        return result

    def _step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        self._learn(optimizer)
        if not self._scaled_backward and self.scaler.is_enabled():
            self._record("step_without_scaled_backward", Severity.ERROR,
                         f"scaler.step({type(optimizer).__name__}) with no backward through scaler.scale(loss) since "
                         f"the last update: the gradients are divided by the loss scale "
                         f"{self.scaler.get_scale():g} without ever having been multiplied by it",
                         call_site(), loss_scale=self.scaler.get_scale())
        return self._originals["step"](optimizer, *args, **kwargs)

    def _update(self, *args: Any, **kwargs: Any) -> Any:
        result = self._originals["update"](*args, **kwargs)
        self.step += 1
        self._scaled_backward = False
        self._unscaled.clear()
        return result

    def check_clip(self, name: str, params: list[Any], args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Audit one call of the clipping function ``name`` (``clip_grad_norm_``/``clip_grad_value_``) on
        ``params`` (a list of tensors), made with ``args``/``kwargs``; return the arguments to call it with
        (the threshold multiplied by the loss scale when :attr:`repair` applies, else unchanged)."""
        if self._scaled_backward and self.scaler.is_enabled():
            owners = self._owners(params)
            scaled = [o for o in owners if not self._is_unscaled(o)] if owners else (
                [] if any(self._is_unscaled(o) for o in self._known.values()) else [None])
            if scaled:
                scale = self.scaler.get_scale()
                limit = args[0] if args else kwargs.get("max_norm", kwargs.get("clip_value"))
                evidence = {"call": name, "loss_scale": scale}
                if isinstance(limit, (int, float)):
                    evidence.update(max_norm=float(limit), effective_max_norm=float(limit) / scale)
                self._record("clip_scaled_gradients", Severity.ERROR,
                             f"{name} clips gradients still multiplied by the loss scale {scale:g} (no "
                             f"scaler.unscale_ before it): the effective threshold is "
                             f"{evidence.get('max_norm', 0) / scale:.3g}, so every update is cut to a sliver",
                             call_site(), **evidence)
                if self.repair and isinstance(limit, (int, float)):
                    self.repaired += 1
                    if args:
                        args = (float(limit) * scale, *args[1:])
                    else:
                        kwargs = {**kwargs, ("max_norm" if "max_norm" in kwargs else "clip_value"):
                                  float(limit) * scale}
        return args, kwargs

    def _clip_wrapper(self, original: Any, name: str) -> Any:
        def clip(parameters: Any, *args: Any, **kwargs: Any) -> Any:
            import torch

            params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
            args, kwargs = self.check_clip(name, params, args, kwargs)
            return original(params, *args, **kwargs)

        clip.__wrapped__ = original  # type: ignore[attr-defined]
        return clip
