"""The plan of GradScaler's fused inf/NaN kernel (``torch._amp_foreach_non_finite_check_and_unscale_``) over a
set of gradients, as :class:`~faultlib.detect.numerics.sentinel.GradientSentinel` runs it with an inverse scale of
1.0: gradients grouped by device and dtype as ``GradScaler._unscale_grads_`` groups them, one found-inf flag per
device, read on CPU through a NumPy view (a memory load, not a torch dispatch).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FusedGroup", "FusedPlan"]


class FusedGroup:
    """Gradients of one device and dtype, checked by one call of the fused op."""

    __slots__ = ("indices", "found_inf", "inv_scale", "host")

    def __init__(self, indices: list[int] | None, found_inf: Any, inv_scale: Any):
        self.indices = indices  # positions in the step's gradient list; None: all of them
        self.found_inf = found_inf  # shared by the groups of one device, as in GradScaler
        self.inv_scale = inv_scale
        # on CPU a memoryview of found_inf: reading it is a memory load (a Python float), not a torch dispatch
        self.host = None
        if found_inf.device.type == "cpu":
            try:
                self.host = memoryview(found_inf.numpy())
            except (RuntimeError, TypeError):  # torch built without NumPy
                self.host = None

    def found(self) -> bool:
        """Read the flag (a host read on an accelerator) and clear it if it was set."""
        host = self.host
        if not (host[0] if host is not None else self.found_inf.item()):
            return False
        self.found_inf.zero_()
        return True


class FusedPlan:
    """How one layout of gradients goes through the fused op: its groups and per-device flags.

    An empty plan means the op does not apply (a sparse or non-floating-point gradient).
    """

    __slots__ = ("groups", "flags")

    def __init__(self, groups: list[FusedGroup]):
        self.groups = groups
        self.flags = list({id(g.found_inf): g for g in groups}.values())  # one group per device

    @classmethod
    def build(cls, tensors: list[Any]) -> "FusedPlan":
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
            groups.append(FusedGroup(None if len(by_key) == 1 else indices, *per_device[device]))
        return cls(groups)
