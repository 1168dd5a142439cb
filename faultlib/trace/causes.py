"""What ``faultlib trace`` says about a non-finite value that no model forward produced.

* :func:`nonfinite_error`: the script died of a non-finite value (``torch.multinomial``'s "probability tensor
  contains either `inf`, `nan` or element < 0", a ``torch.distributions`` constraint that "found invalid
  values", ``clip_grad_norm_(error_if_nonfinite=True)``, anomaly mode's "returned nan values", a failed
  ``assert torch.isfinite(x)``): the watch pass trips on it, so the replay names the op and line of the
  post-processing, sampling, loss or metric that made the value.
* :func:`optimizer_update`: a parameter an optimizer's ``step()`` made non-finite from finite gradients:
  the optimizer, its param group, the parameter and the known cause (an ``eps`` that rounds to 0 in the
  parameter's dtype, a second moment of 0 under it, an ``lr`` that is not finite or overflows the dtype).
* :func:`nonfinite_grads`: the parameters a backward NaN reached.
* :func:`step_past_scaler`: ``optimizer.step()`` called outside ``GradScaler.step()`` on gradients the scaler
  found non-finite (it skipped its own step): the call that applies them.
* :func:`corrupted_state`: a model parameter or buffer finite before the model's first forward that is not finite
  at the script's end: written under ``no_grad`` where no output, gradient or loss showed it.
"""

from __future__ import annotations

import linecache
import math
import os
import re
import traceback
from typing import Any

#: words of an error message (or of the source line of a failed ``assert``) that say a value was not finite
NONFINITE_TEXT = re.compile(r"\b(nan|inf|infinity|non-?finite|not finite|isfinite|isnan|isinf|isposinf|isneginf|"
                            r"found invalid values)\b", re.IGNORECASE)
MAX_NAMED = 20
"""At most this many parameter names are listed (``gradients_reached``); the count is always given."""


def nonfinite_error(exc: BaseException, script: str) -> dict[str, Any] | None:
    """Whether the script's uncaught exception says a value was not finite.

    Args:
        exc: the exception (an ``Exception``; ``KeyboardInterrupt``/``SystemExit`` never match).
        script: the script's absolute path (the innermost frame in it, else the innermost frame, is the line).

    Returns:
        ``{"error": "RuntimeError: ...", "file", "line"}`` (first line of the message; the line that raised),
        or None when the message and, for an ``AssertionError``, the asserted source line do not say so.
    """
    if not isinstance(exc, Exception):
        return None
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if os.path.abspath(f.filename) == script] or frames
    frame = own[-1] if own else None
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = message
    if isinstance(exc, AssertionError) and frame is not None:
        text += " " + (linecache.getline(frame.filename, frame.lineno or 0) or "")
    if not NONFINITE_TEXT.search(text):
        return None
    return {"error": f"{type(exc).__name__}: {message}".rstrip(": "),
            "file": frame.filename if frame else None, "line": frame.lineno if frame else None}


def nonfinite_grads(named_parameters) -> tuple[list[str], int]:
    """Names (at most :data:`MAX_NAMED`, model order) and count of the parameters whose gradient is not finite."""
    import torch

    names = [n for n, p in named_parameters if p.grad is not None and p.grad.is_floating_point()
             and not bool(torch.isfinite(p.grad).all())]
    return names[:MAX_NAMED], len(names)


def _smallest_positive(dtype) -> float:
    import torch

    info = torch.finfo(dtype)
    return float(info.smallest_normal) * float(info.eps)  # the smallest subnormal (2**-24 in float16)


def optimizer_update(optimizer, names: dict[int, str]) -> dict[str, Any] | None:
    """The first parameter of ``optimizer`` that holds a non-finite value after its ``step()``, and why.

    Args:
        optimizer: a ``torch.optim.Optimizer`` just stepped.
        names: ``{id(parameter): dotted name}`` from the traced models.

    Returns:
        ``{"optimizer", "param_group", "parameter", "dtype", "lr", "eps", "nonfinite_params", "cause"}`` or
        None when every parameter is finite. ``cause`` is one sentence, or None when no known cause applies:
        ``eps`` below the dtype's smallest positive value (it rounds to 0: Adam's ``m / (sqrt(v) + eps)`` is
        ``0 / 0`` where the second moment ``v`` is 0; Kingma & Ba 2015 need ``eps > 0``), a non-finite ``lr``,
        or an update beyond the dtype's largest value (``torch.finfo``).
    """
    import torch

    bad = [(g, p) for g, group in enumerate(optimizer.param_groups) for p in group["params"]
           if p.is_floating_point() and not bool(torch.isfinite(p.detach()).all())]
    if not bad:
        return None
    index, param = bad[0]
    group = optimizer.param_groups[index]
    lr, eps = group.get("lr"), group.get("eps")
    lr = float(lr) if isinstance(lr, (int, float, torch.Tensor)) else None
    eps = float(eps) if isinstance(eps, (int, float)) else None
    dtype = str(param.dtype).replace("torch.", "")
    state = optimizer.state.get(param, {})
    second = state.get("exp_avg_sq")
    cause = None
    if lr is not None and not math.isfinite(lr):
        cause = f"lr is {lr}"
    elif eps is not None and 0 < eps and float(torch.tensor(eps, dtype=param.dtype)) == 0:
        zeros = ""
        if isinstance(second, torch.Tensor) and second.shape == param.shape:
            where = ~torch.isfinite(param.detach())
            zeros = f" (here at {int((second[where] == 0).sum())} of the {int(where.sum())} non-finite elements)"
        tiny = _smallest_positive(param.dtype)
        nan, inf = bool(torch.isnan(param.detach()).any()), bool(torch.isinf(param.detach()).any())
        made = " or ".join(what for what, there in (("0 / 0 = NaN", nan), ("m / 0 = inf", inf)) if there)
        cause = (f"eps={eps:g} is below the smallest positive {dtype} value ({tiny:.3g}) and rounds to 0: "
                 f"m / (sqrt(v) + eps) is {made or 'm / 0'} where the second moment v is 0{zeros}. Use eps >= "
                 f"{tiny * 2:.2g} or keep fp32 master weights")
    elif lr is not None and bool(torch.isinf(param.detach()).any()):
        cause = (f"lr={lr:g} makes an update beyond the {dtype} maximum ({float(torch.finfo(param.dtype).max):.4g})")
    return {"optimizer": type(optimizer).__name__, "param_group": index,
            "parameter": names.get(id(param), f"param_groups[{index}] parameter"), "dtype": dtype, "lr": lr,
            "eps": eps, "nonfinite_params": len(bad), "cause": cause}


def inside_scaler_step() -> bool:
    """Whether the caller runs inside ``GradScaler.step()`` (a frame of torch/amp/grad_scaler.py on the stack)."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("amp", "grad_scaler.py")):
            return True
        frame = frame.f_back
    return False


def step_past_scaler(optimizer, names: dict[int, str]) -> tuple[dict[str, Any], Any] | None:
    """``optimizer.step()`` about to run outside ``GradScaler.step()`` with non-finite gradients, while a GradScaler
    is enabled: the scaler treats those gradients as its ordinary overflow and skips its own step (torch/amp/
    grad_scaler.py: ``step`` calls ``optimizer.step()`` only when no inf/NaN was found), so this call is what writes
    them into the weights (FlyEgle/imageclassification#1: a second ``optimizer.step()`` after ``scaler.step``).

    Returns:
        ``(fields, gradient)``: the fields of :func:`optimizer_update` for the first parameter whose gradient is not
        finite (``cause`` says the above) and that gradient; None when every gradient is finite.
    """
    import torch

    for index, group in enumerate(optimizer.param_groups):
        for param in group["params"]:
            grad = param.grad
            if grad is None or not grad.is_floating_point() or bool(torch.isfinite(grad).all()):
                continue
            lr, eps = group.get("lr"), group.get("eps")
            return {"optimizer": type(optimizer).__name__, "param_group": index,
                    "parameter": names.get(id(param), f"param_groups[{index}] parameter"),
                    "dtype": str(param.dtype).replace("torch.", ""),
                    "lr": float(lr) if isinstance(lr, (int, float, torch.Tensor)) else None,
                    "eps": float(eps) if isinstance(eps, (int, float)) else None,
                    "nonfinite_params": sum(1 for g in optimizer.param_groups for p in g["params"]
                                            if p.grad is not None and p.grad.is_floating_point()
                                            and not bool(torch.isfinite(p.grad).all())),
                    "cause": "optimizer.step() called outside GradScaler.step() on gradients the scaler found "
                             "non-finite: the scaler skips such a step (its ordinary overflow; it then lowers the "
                             "loss scale), this call applies them. Step only through scaler.step(optimizer)"}, grad
    return None


def finite_state(module) -> list[tuple[str, str]]:
    """``("parameter" | "buffer", name)`` of the floating-point parameters and buffers of ``module`` (recursively)
    whose every element is finite."""
    return [(kind, n) for kind, named in (("parameter", module.named_parameters()), ("buffer", module.named_buffers()))
            for n, t in named if _checkable(t) and bool(_finite_all(t))]


def _checkable(t) -> bool:
    """A dense float tensor with data here: not on the meta device (no data: reading it raises), not sparse, not a
    tensor subclass such as a DTensor (FSDP2, tensor parallel: reading the whole of it is a collective that only
    this process would enter)."""
    import torch

    return (type(t) in (torch.Tensor, torch.nn.Parameter) and t.is_floating_point() and not t.is_meta
            and t.layout == torch.strided)


def _finite_all(t):
    import torch

    return torch.isfinite(t.detach()).all()


def corrupted_state(watched) -> tuple[Any, str, str, int, int] | None:
    """The first parameter or buffer, finite when it was watched, that now holds a non-finite value.

    A buffer is state a model writes itself, usually under ``no_grad`` (an EMA codebook renormalised by a count of 0
    in fp16: ZhikangNiu/encodec-pytorch#8; BatchNorm's running statistics); a non-finite value there can stay
    out of every output, gradient and loss while the model silently stops learning. ``-inf`` alone is not counted
    in a buffer (a mask filled in on purpose, e.g. a causal mask built after the first forward). A parameter can
    go the same way unseen: a NaN gradient applied by a hand-written update (no optimizer step to check), where a
    ``torch.where`` or a mask keeps the NaN weights out of every output; any non-finite value of a parameter counts.

    Args:
        watched: ``(module, state, forward_index, step)`` per model: ``state`` from :func:`finite_state` before
            its first forward, that forward's index and the step it ran in.

    Returns:
        ``(module, "parameter" | "buffer", name, forward_index, step)`` of the first such tensor, or None.
    """
    import torch

    for module, state, first, first_step in watched:
        tensors = {"parameter": dict(module.named_parameters()), "buffer": dict(module.named_buffers())}
        for kind, name in state:
            t = tensors[kind].get(name)
            if t is None or not _checkable(t):
                continue
            bad = ~torch.isfinite(t) if kind == "parameter" else torch.isnan(t) | torch.isposinf(t)
            if bool(bad.any()):
                return module, kind, name, first, first_step
    return None
