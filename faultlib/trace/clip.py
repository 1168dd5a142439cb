"""``faultlib trace``'s wrappers of ``torch.nn.utils.clip_grad_norm_`` and ``clip_grad_value_`` (installed by
:meth:`faultlib.trace.boot.Tracer.install` before the script runs): the GradScaler audits see every clipping call,
also through a name the script imported at its top, and the total norm ``clip_grad_norm_`` computes is read."""

from __future__ import annotations

import math
from typing import Any

from faultlib.detect.numerics.nan_locator import user_frame
from faultlib.trace.batch import tensor_json


def patch_clip(tracer: Any) -> None:
    """Wrap ``clip_grad_norm_`` and ``clip_grad_value_`` (in ``torch.nn.utils`` and its ``clip_grad`` module)
    before the script runs, so a script that imports them by name (``from torch.nn.utils import
    clip_grad_norm_`` at its top, before any GradScaler exists) calls the wrappers too. Every call goes
    through the GradScaler audits alive at that moment (clipping still-scaled gradients). ``clip_grad_norm_``'s
    total norm is read (one host read): a non-finite norm is the trip, and a finite one proves the step's
    gradients finite, so the gradient check at ``optimizer.step()`` is skipped."""
    import torch.nn.utils as nn_utils
    import torch.nn.utils.clip_grad as clip_grad

    torch = tracer.torch
    originals = {name: getattr(clip_grad, name) for name in ("clip_grad_norm_", "clip_grad_value_")}
    exported = {name: getattr(nn_utils, name) for name in originals}

    def audited(name: str, params: list, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        for audit in tracer.audits:
            args, kwargs = audit.check_clip(name, params, args, kwargs)
        return args, kwargs

    def clip_grad_norm_(parameters, *args, **kwargs):
        params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        if tracer.audits:
            args, kwargs = audited("clip_grad_norm_", params, args, kwargs)
        before = len(tracer.locator.events) if tracer.locator is not None else None
        try:
            norm = originals["clip_grad_norm_"](params, *args, **kwargs)
        except RuntimeError as exc:  # error_if_nonfinite=True
            if "non-finite" in str(exc):
                clip_tripped(tracer, params, None)
            raise
        if before == 0 and tracer.locator.events and tracer.first_event()["source"] == "op":
            tracer.extra.setdefault("kind", "grad_norm_overflow")  # born in the norm: finite gradients
            tracer.extra.setdefault("phase", "optimizer")
        if tracer.locator is None and isinstance(norm, torch.Tensor):
            if math.isfinite(norm.item()):
                tracer.clipped = frozenset(map(id, params))
            elif not tracer.scaler_handles_overflow():
                clip_tripped(tracer, params, norm)
        return norm

    def clip_grad_value_(parameters, *args, **kwargs):
        params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        if tracer.audits:
            args, kwargs = audited("clip_grad_value_", params, args, kwargs)
        return originals["clip_grad_value_"](params, *args, **kwargs)

    for wrapper in (clip_grad_norm_, clip_grad_value_):
        wrapper.__wrapped__ = originals[wrapper.__name__]
        wrapper.__doc__ = originals[wrapper.__name__].__doc__
        setattr(clip_grad, wrapper.__name__, wrapper)
        setattr(nn_utils, wrapper.__name__, wrapper)

    def undo() -> None:
        for name, original in originals.items():
            setattr(clip_grad, name, original)
            setattr(nn_utils, name, exported[name])

    tracer._undo.append(undo)


def clip_tripped(tracer: Any, params: list, norm: Any) -> None:
    """Watch: the total norm is not finite. With every gradient finite it overflowed (the sum of squares passed
    the dtype's maximum) and clip_grad_norm_ scaled every gradient by max_norm / inf = 0: its own kind."""
    torch = tracer.torch
    grads_finite = all(bool(torch.isfinite(p.grad).all()) for p in params
                       if p.grad is not None and p.grad.is_floating_point())
    where = "the total norm clip_grad_norm_ computed"
    if grads_finite and norm is not None:
        file, line = user_frame()
        tracer._cheap_trip("optimizer", None, where, kind="grad_norm_overflow", file=file, line=line,
                         op="clip_grad_norm_", tensor=tensor_json(norm))
    else:
        tracer._cheap_trip("optimizer", None, where)
