"""CollectiveNonFiniteWatch in-process, on a real one-rank gloo world: DDP's bucket all-reduce is routed through
the checked `dist.all_reduce` (without the routing the reducer calls gloo from C++ and nothing is seen), a
rank's own NaN going into a collective is `sent`, and `first_consumer` names where a NaN in the data entered
the model. The two-rank "received" path runs in tests/trace/test_world.py and the case distributed_nan_rank."""

from __future__ import annotations

import math
from collections import OrderedDict

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

from faultlib.detect import CollectiveNonFiniteWatch, first_consumer  # noqa: E402
from tests.rendezvous import one_rank_store  # noqa: E402


@pytest.fixture
def one_rank_world():
    dist.init_process_group("gloo", store=one_rank_store(), rank=0, world_size=1)  # no port to race for
    try:
        yield
    finally:
        dist.destroy_process_group()


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(OrderedDict(fc1=torch.nn.Linear(4, 3), act=torch.nn.ReLU(), head=torch.nn.Linear(3, 1)))


def test_ddp_buckets_are_checked_and_a_nan_going_in_is_sent(one_rank_world):
    steps = {"now": 0}
    seen = []
    original = dist.all_reduce
    with CollectiveNonFiniteWatch(step=lambda: steps["now"], on_event=seen.append) as watch:
        model = torch.nn.parallel.DistributedDataParallel(_model())
        for step, poison in enumerate((False, True)):
            steps["now"] = step
            x = torch.ones(2, 4)
            if poison:
                x[1, 2] = math.nan
            model(x).sum().backward()
    summary = watch.summary(0)
    assert summary["received"] is None
    sent = summary["sent"]
    assert (sent["op"], sent["seq"], sent["step"]) == ("all_reduce", 1, 1)  # step 0's bucket was seq 0, finite
    assert sent["call_site"]["file"] == __file__  # the user's backward() line, not torch's or faultlib's
    assert [e["role"] for e in seen] == ["sent"]
    assert dist.all_reduce is original  # restored on exit


def test_a_hook_the_user_registers_is_kept(one_rank_world):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    calls = []

    def hook(state, bucket):
        calls.append(bucket.index())
        return default_hooks.allreduce_hook(state, bucket)

    with CollectiveNonFiniteWatch() as watch:
        model = torch.nn.parallel.DistributedDataParallel(_model())
        model.register_comm_hook(None, hook)  # after DDP's construction, before its first forward: allowed
        model(torch.ones(2, 4)).sum().backward()
    assert calls == [0] and watch.counts == {"received": 0, "sent": 0}


def test_first_consumer_names_the_op_and_module_where_a_nan_in_the_data_entered():
    model = _model()
    x = torch.ones(3, 4)
    x[2, 0] = math.nan
    found = first_consumer(model, lambda: model(x))
    assert (found["module"], found["op"]) == ("fc1", "aten::addmm")
    assert found["file"] == __file__
    assert first_consumer(model, lambda: model(torch.ones(3, 4))) is None
