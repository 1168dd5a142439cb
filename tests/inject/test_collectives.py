"""The collective_skip shim: on the named rank, inside its step window, the attached reducer is called only when
the batch holds data; elsewhere (other ranks, other steps) every call reaches the collective-uniform reducer."""

from __future__ import annotations

import pytest

from faultlib.errors import InjectionError
from faultlib.inject import InjectorSet, build


class Target:
    def __init__(self, model):
        self.model, self.step, self.attempt, self.faults = model, None, 1, []

    def subscribe(self, point, callback):
        raise AssertionError("collective_skip needs no fault point")

    def reroute(self, endpoint, resolver):
        raise AssertionError("no network")

    def record_fault(self, injector, **attributes):
        self.faults.append((injector, attributes))


class Trainer:
    def __init__(self):
        self.calls = []

    def reduce_metric(self, values, present):
        self.calls.append(values)
        return values * 2  # stands for the all-reduce


@pytest.mark.parametrize("rank, skips", [("1", [(4, 0)]), ("0", [])])
def test_only_the_named_rank_skips_and_only_without_data_inside_the_window(monkeypatch, rank, skips):
    monkeypatch.setenv("RANK", rank)
    trainer, faults = Trainer(), InjectorSet([build("collective_skip", {"rank": 1, "start_step": 3, "steps": 2})])
    target = Target(trainer)
    faults.apply(target)
    seen = []
    for step, present in [(2, False), (3, True), (4, False), (5, False), (6, False)]:
        target.step = step
        seen.append((step, trainer.reduce_metric(step * 10, present)))
    skipped = [(s, v) for s, v in seen if v == s * 10]  # returned untouched: no collective issued
    assert [(s, 0) for s, _ in skipped] == skips
    assert len(trainer.calls) == 5 - len(skips)
    assert target.faults == ([("collective_skip", {"rank": 1, "step": 4, "attribute": "reduce_metric"})] if skips else [])
    faults.revert()
    assert trainer.reduce_metric.__func__ is Trainer.reduce_metric


def test_a_target_without_the_reducer_is_refused(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(InjectionError, match="reduce_metric"):
        InjectorSet([build("collective_skip", {"rank": 1, "start_step": 0})]).apply(Target(object()))
