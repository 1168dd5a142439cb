"""GPU memory faults: an allocation pattern that fragments PyTorch's CUDA caching allocator."""

from __future__ import annotations

import copy
from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class AllocationChurn(WindowedInjector):
    """Serve requests whose buffers vary in size and finish out of order, for a window of steps.

    Models the traffic that fragments the caching allocator: every in-flight request holds a GPU
    buffer sized by the request (a sequence's state, a KV cache, a feature block); when sizes vary
    and requests finish in any order, freed blocks are reused by smaller requests and split, the
    free memory ends up in slivers beside live blocks, and larger requests need new segments. Near
    the memory limit the allocator flushes its cache and retries ``cudaMalloc`` on many steps,
    and throughput drops.

    At each step (fault point ``step``) the attached object's traffic attribute holds
    ``{"size_mib": [low, high], "out_of_order": bool}`` inside the window and its original value
    outside it. The workload reads it when it admits and retires requests.

    Params:
        attribute (str): the attached object's attribute holding the traffic dict, default ``traffic``.
        size_mib (list[number, number]): smallest and largest request buffer, MiB.
        out_of_order (bool): requests finish in random order instead of first-in first-out, default true.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "allocation_churn"
    summary = "request buffers of varying size finishing out of order (fragments the CUDA caching allocator)"
    params_schema = WindowedInjector.schema(
        ["size_mib"], attribute={"type": "string", "default": "traffic"},
        size_mib={"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 2, "maxItems": 2},
        out_of_order={"type": "boolean", "default": True})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.attribute: str = params.get("attribute", "traffic")
        low, high = params["size_mib"]
        if low > high:
            raise InjectionError(f"allocation_churn: size_mib {[low, high]} must be [smallest, largest]")
        self.traffic = {"size_mib": [low, high], "out_of_order": bool(params.get("out_of_order", True))}
        self._owner: Any = None
        self._original: Any = None
        self._recorded = False

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        current = getattr(owner, self.attribute, None) if owner is not None else None
        if not isinstance(current, dict) or "size_mib" not in current:
            raise InjectionError(f"allocation_churn needs the attached object to hold a traffic dict "
                                 f"{{'size_mib': [low, high], 'out_of_order': bool}} in {self.attribute!r}")
        self._owner, self._original = owner, copy.deepcopy(current)

        def reached(_point: str, attributes: dict[str, Any]) -> None:
            active = self.active_at(attributes.get("step"))
            setattr(owner, self.attribute, copy.deepcopy(self.traffic if active else self._original))
            if active:
                self.hits += 1
                if not self._recorded:
                    self._recorded = True
                    target.record_fault(self.name, step=attributes.get("step"), size_mib=self.traffic["size_mib"],
                                        out_of_order=self.traffic["out_of_order"])

        target.subscribe("step", reached)

    def revert(self) -> None:
        if self._owner is not None:
            setattr(self._owner, self.attribute, copy.deepcopy(self._original))
        self._owner = None
