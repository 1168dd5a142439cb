"""The worker_kill shim on real DataLoader workers: it fires in the named rank only, on the named index,
by raising or by the worker's death, and never kills the main process (num_workers=0)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from faultlib.detect import WorkerFault, WorkerWatch  # noqa: E402
from faultlib.errors import InjectionError  # noqa: E402
from faultlib.inject import build  # noqa: E402
from faultlib.inject.data import Slot  # noqa: E402

DATA = TensorDataset(torch.arange(24.0).reshape(12, 2))


class _Target:
    attempt, step, model = 1, None, None

    def __init__(self):
        self.points, self.faults = {}, []

    def subscribe(self, point, callback):
        self.points.setdefault(point, []).append(callback)

    def record_fault(self, injector, **attributes):
        self.faults.append((injector, attributes))


def _poisoned(monkeypatch, rank_env, **params):
    if rank_env is None:
        monkeypatch.delenv("RANK", raising=False)
    else:
        monkeypatch.setenv("RANK", str(rank_env))
    shim, target = build("worker_kill", params), _Target()
    shim.apply(target)
    slot = Slot(DATA)
    for callback in target.points["data.dataset"]:
        callback("data.dataset", {"slot": slot, "source": "digits"})
    return slot.value, target.faults


def test_only_the_named_rank_is_poisoned(monkeypatch):
    dataset, faults = _poisoned(monkeypatch, 0, index=5, action="raise", rank=1)
    assert dataset is DATA and faults == []
    dataset, faults = _poisoned(monkeypatch, 1, index=5, action="raise", rank=1)
    assert dataset is not DATA and len(dataset) == 12
    assert faults == [("worker_kill", {"point": "data.dataset", "source": "digits", "index": 5, "action": "raise",
                                       "signal": None, "rank": 1})]


def test_raise_fires_on_the_index_in_the_main_process_and_kill_only_in_workers(monkeypatch):
    raising, _ = _poisoned(monkeypatch, None, index=5, action="raise")
    assert torch.equal(raising[4][0], torch.tensor([8.0, 9.0]))
    with pytest.raises(OSError, match="image file is truncated"):
        raising[5]
    killing, _ = _poisoned(monkeypatch, None, index=5, action="kill")
    assert torch.equal(killing[5][0], torch.tensor([10.0, 11.0]))  # num_workers=0: never kills the rank itself
    watch = WorkerWatch(killing)
    with pytest.raises(WorkerFault) as caught:
        list(watch.iterate(DataLoader(watch.dataset, batch_size=4, num_workers=1)))
    assert (caught.value.report.kind, caught.value.report.index, caught.value.report.signal) == (
        "worker_killed", 5, "SIGKILL")


def test_params_are_validated():
    with pytest.raises(InjectionError):
        build("worker_kill", {"index": -1})
    with pytest.raises(InjectionError):
        build("worker_kill", {"index": 1, "signal": "SIGTERM"})
