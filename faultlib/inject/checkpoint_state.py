"""Checkpoint-content faults: a checkpoint helper that writes only part of the training state."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, Injector


class CheckpointDropState(Injector):
    """Drop named keys from the training state the workload's checkpoints are written from.

    Models a resume path that saves (and so restores) only part of the state — the model and the
    optimizer, say, but not the LR scheduler or the GradScaler: every file is intact and loads, and
    the resumed run is silently another run. The attached object's ``method`` (default ``state``,
    returning the dict a checkpoint is written from) is wrapped on the instance so its result lacks
    the keys in ``drop``; ``revert`` removes the wrapper. ``dropped`` counts the states it cut.

    Params:
        drop (list[str]): top-level keys to leave out (e.g. ``["schedule", "scaler"]``).
        method (str): the attached object's method returning the state dict, default ``state``.
    """

    name = "checkpoint_drop_state"
    summary = "leave named keys (scheduler, GradScaler, RNG...) out of the state the checkpoints are written from"
    params_schema = {"type": "object", "additionalProperties": False, "required": ["drop"],
                     "properties": {"drop": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                    "method": {"type": "string", "default": "state"}}}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.drop: list[str] = list(params["drop"])
        self.method: str = params.get("method", "state")
        self._owner: Any = None
        self.dropped = 0

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        original = getattr(owner, self.method, None)
        if not callable(original):
            raise InjectionError(f"checkpoint_drop_state needs the attached object to have a method {self.method!r} "
                                 "returning the state dict its checkpoints are written from")

        def partial_state(*args: Any, **kwargs: Any) -> Any:
            state = original(*args, **kwargs)
            if isinstance(state, dict):
                self.dropped += 1
                return {k: v for k, v in state.items() if k not in self.drop}
            return state

        setattr(owner, self.method, partial_state)
        self._owner = owner

    def revert(self) -> None:
        if self._owner is not None:
            self._owner.__dict__.pop(self.method, None)
            self._owner = None
