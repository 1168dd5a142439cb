"""rank_slowdown: only the named rank's data path slows, per sample, inside its step window; params are checked."""

from __future__ import annotations

import time

import pytest

from faultlib.errors import InjectionError
from faultlib.inject import build


class Target:
    """A FaultTarget with what the shim uses: fault-point subscriptions and the fault record."""

    model, step, attempt = None, None, 1

    def __init__(self):
        self.points, self.faults = {}, []

    def subscribe(self, point, callback):
        self.points.setdefault(point, []).append(callback)

    def record_fault(self, injector, **attributes):
        self.faults.append((injector, attributes))

    def reach(self, **attributes):
        started = time.perf_counter()
        for callback in self.points.get("data.load", ()):
            callback("data.load", attributes)
        return (time.perf_counter() - started) * 1000


@pytest.mark.parametrize("mode", ["sleep", "spin"])
def test_the_named_rank_waits_per_sample_inside_its_window(monkeypatch, mode):
    monkeypatch.setenv("RANK", "1")
    shim = build("rank_slowdown", {"rank": 1, "start_step": 3, "steps": 2, "ms_per_sample": 1.0, "mode": mode})
    target = Target()
    shim.apply(target)
    assert target.reach(step=2, samples=20) < 5  # before the window
    assert target.reach(step=3, samples=20) >= 20  # 1 ms x 20 samples
    assert target.reach(step=4, samples=5) >= 5
    assert target.reach(step=5, samples=20) < 5  # after it
    assert shim.hits == 2 and shim.slowed_ms == 25
    assert target.faults == [("rank_slowdown", {"point": "data.load", "step": 3, "rank": 1, "mode": mode,
                                                "ms_per_sample": 1.0})]
    assert [shim.active_at(s) for s in (2, 3, 4, 5)] == [False, True, True, False]


def test_other_ranks_only_label_their_windows(monkeypatch):
    monkeypatch.setenv("RANK", "0")
    shim = build("rank_slowdown", {"rank": 1, "start_step": 0, "ms_per_sample": 50})
    target = Target()
    shim.apply(target)
    assert target.points == {} and target.reach(step=0, samples=10) < 5
    assert shim.active_at(10**6), "without steps the slowdown lasts to the end"


@pytest.mark.parametrize("params", [{"rank": 1, "start_step": 0}, {"rank": -1, "start_step": 0, "ms_per_sample": 1},
                                    {"rank": 1, "start_step": 0, "ms_per_sample": 0},
                                    {"rank": 1, "start_step": 0, "ms_per_sample": 1, "mode": "io"}])
def test_bad_params_are_refused(params):
    with pytest.raises(InjectionError):
        build("rank_slowdown", params)
