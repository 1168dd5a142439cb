"""checkpoint_drop_state: the attached object's state() loses the named keys while applied, and only then."""

from __future__ import annotations

import pytest

from faultlib.errors import InjectionError
from faultlib.inject.checkpoint_state import CheckpointDropState


class Trainer:
    def state(self, step):
        return {"step": step, "model": {}, "schedule": {"last_epoch": step}, "scaler": {"scale": 65536.0}}


class Target:
    step, attempt = None, 1

    def __init__(self, model):
        self.model = model


def test_named_keys_are_dropped_until_reverted():
    trainer = Trainer()
    shim = CheckpointDropState(drop=["schedule", "scaler"])
    shim.apply(Target(trainer))
    assert sorted(trainer.state(5)) == ["model", "step"] and shim.dropped == 1
    shim.revert()
    assert sorted(trainer.state(5)) == ["model", "scaler", "schedule", "step"]


def test_an_object_without_the_method_is_refused():
    with pytest.raises(InjectionError, match="method 'state'"):
        CheckpointDropState(drop=["x"]).apply(Target(object()))
