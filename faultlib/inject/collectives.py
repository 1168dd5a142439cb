"""Distributed faults: one rank skips a collective on a data-dependent branch.

The classic desync of a ``torch.distributed`` job: a metric or a loss term is all-reduced only
``if`` this rank's batch holds some class (or is not empty, or has a valid token ...). Every rank
runs the same program, but the branch reads local data, so sooner or later one rank takes the other
branch, skips the collective, and goes on to the next one: the ranks wait in different collectives
and the job hangs until the backend's timeout (gloo and NCCL: 10-30 min), with no message naming
the rank (a per-rank ``continue`` on a batch without valid samples hung NeMo Automodel's DDP trainer:
https://github.com/NVIDIA-NeMo/Automodel/pull/2468).

The ``collective_skip`` shim reproduces that without editing the repro: the attached object holds a
*collective-uniform* reducer (every rank calls the collective; a rank without data contributes
zeros), called as ``reduce(tensor, present, **kwargs)`` where ``present`` says whether this rank's
batch holds what the metric counts. On one rank, for a window of steps, the shim replaces it by the
branch ``if present: reduce(...)``: where the batch lacks it, the collective is never issued.
"""

from __future__ import annotations

import os
from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class CollectiveSkip(WindowedInjector):
    """On one rank, call the attached object's reducer only when this rank's batch holds data.

    Params:
        rank (int): the rank whose code takes the data-dependent branch (``RANK`` as torchrun sets it);
            on every other rank the shim does nothing.
        attribute (str): the attached object's reducer, ``reduce(tensor, present, **kwargs) -> tensor``;
            default ``reduce_metric``.
        start_step (int): first step with the branch.
        steps (int): number of consecutive steps with the branch, default 1.

    ``hits`` counts the collectives skipped; the first skip is recorded (``faultlib.fault`` span with
    ``rank``, ``step`` and ``attribute``) before the rank goes on.

    Raises:
        InjectionError: ``apply`` finds no callable reducer under ``attribute``.
    """

    name = "collective_skip"
    summary = "on one rank, skip the attached object's collective whenever its batch lacks the data it counts"
    params_schema = WindowedInjector.schema(["rank"], rank={"type": "integer", "minimum": 0},
                                            attribute={"type": "string", "default": "reduce_metric"})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rank = int(params["rank"])
        self.attribute: str = params.get("attribute", "reduce_metric")
        self._owner: Any = None
        self._original: Any = None
        self.skipped_steps: list[int] = []

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        reducer = getattr(owner, self.attribute, None) if owner is not None else None
        if not callable(reducer):
            raise InjectionError(f"collective_skip needs the attached object to have a reducer "
                                 f"{self.attribute}(tensor, present, ...); found {type(reducer).__name__}")
        if int(os.environ.get("RANK", "0")) != self.rank:
            return  # the other ranks keep the collective-uniform code
        self._owner, self._original = owner, reducer
        injector = self

        def branchy(tensor: Any, present: bool, *args: Any, **kwargs: Any) -> Any:
            step = target.step
            if present or not injector.active_at(step):
                return reducer(tensor, present, *args, **kwargs)
            injector.hits += 1  # the branch a rank without data takes: no collective at all
            injector.skipped_steps.append(step)
            if injector.hits == 1:
                target.record_fault(injector.name, rank=injector.rank, step=step, attribute=injector.attribute)
            return tensor

        setattr(owner, self.attribute, branchy)

    def revert(self) -> None:
        if self._owner is not None:
            setattr(self._owner, self.attribute, self._original)
            self._owner = None
