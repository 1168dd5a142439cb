"""Flat gradients: every parameter's ``.grad`` a view of one contiguous buffer, so that one kernel over one tensor
reads all of them (what :class:`~faultlib.detect.numerics.sentinel.GradientSentinel` does with ``flat_grads=True``).

The same layout as DDP's ``gradient_as_bucket_view`` or apex's flat master gradients: backward accumulates into
the views in place (``AccumulateGrad`` adds into a gradient that exists instead of storing a fresh tensor), the
buffer is zeroed with one op instead of the gradients being freed and allocated again every step. What it changes
for the training loop is what ``optimizer.zero_grad(set_to_none=False)`` changes: every parameter has a gradient
on every step, zero where the loss did not reach it (an optimizer then updates such a parameter with a zero
gradient: momentum and weight decay keep acting on it, where a ``None`` gradient would have skipped it), and the
gradients' memory stays allocated between steps (one copy of the parameters).

Cost (``benchmarks/run.py``, digits MLP, fp32, CPU, one thread; ``benchmarks/README.md``): the buffer alone makes
the step ~2 % cheaper than freeing and allocating 8 gradients a step (0.976-0.984); the sentinel's check over it
(one kernel call on one tensor) costs ~1.5-3 % of that step, against ~2.6-2.8 % for the kernel alone over 8
separate gradients and ~3.5-4.5 % for the default ``check()``.
"""

from __future__ import annotations

import operator
from typing import Any

from faultlib.errors import DetectorError

__all__ = ["FlatGradients"]

_GRAD = operator.attrgetter("grad")
_IS = operator.is_


class FlatGradients:
    """One zeroed buffer per parameter set, each parameter's ``.grad`` a view of its slice.

    Args:
        named_parameters: (name, Parameter) pairs; every parameter strided, floating point, on one device and of one
            dtype (the buffer is one tensor).

    Attributes:
        buffer: the 1-D tensor of ``sum(p.numel())`` elements (the parameters' dtype and device) holding every gradient.
        views: per parameter, the view of ``buffer`` shaped like it, in the order given.

    Raises:
        DetectorError: parameters of several devices or dtypes, or a sparse or non-floating-point parameter.
    """

    __slots__ = ("params", "buffer", "views")

    def __init__(self, named_parameters: list[tuple[str, Any]]):
        import torch

        params = [p for _, p in named_parameters]
        kinds = {(p.device, p.dtype) for p in params}
        odd = [n for n, p in named_parameters if p.layout != torch.strided or not p.is_floating_point()]
        if len(kinds) != 1 or odd:
            raise DetectorError("flat_grads=True needs dense floating-point parameters of one device and one dtype, "
                                f"got {sorted(str(k) for k in kinds)}{f' and {odd}' if odd else ''}: "
                                "leave flat_grads off (the default) for this model")
        device, dtype = kinds.pop()
        self.params = params
        self.buffer = torch.zeros(sum(p.numel() for p in params), dtype=dtype, device=device)
        self.views, offset = [], 0
        for p in params:
            self.views.append(self.buffer[offset:offset + p.numel()].view(p.shape))
            offset += p.numel()
        with torch.no_grad():
            for p, view in zip(params, self.views):
                if p.grad is not None:  # a gradient from before: kept, in the buffer
                    view.copy_(p.grad.to_dense() if p.grad.layout != torch.strided else p.grad)
                p.grad = view

    def attached(self) -> bool:
        """Whether every parameter's ``.grad`` is still its view (``zero_grad(set_to_none=True)``, a gradient
        assigned by hand, or ``backward(create_graph=True)`` replace it)."""
        return all(map(_IS, map(_GRAD, self.params), self.views))

    def zero_(self) -> None:
        """Zero every gradient: the views put back where something replaced them, then one ``zero_`` of the
        buffer."""
        if not self.attached():
            for p, view in zip(self.params, self.views):
                p.grad = view
        self.buffer.zero_()
