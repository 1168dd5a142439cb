"""An async collective's "received" event is numbered when the collective is launched, not when its future's
callback runs: on a busy machine the callback can run after the rank's own check saw the value the collective
brought, and the rank was then called its producer (seen once in a fresh clone's distributed_nan_rank run)."""

from __future__ import annotations

import torch

from faultlib.detect.distributed.nonfinite import TENSOR_OPS, CollectiveNonFiniteWatch, role_of


class _Future:
    def __init__(self):
        self.callbacks = []

    def add_done_callback(self, fn):
        self.callbacks.append(fn)


class _Work:
    def __init__(self):
        self.future = _Future()

    def get_future(self):
        return self.future


def _poisoning_all_reduce(tensor, *args, **kwargs):
    """What the other rank's NaN does to this rank's finite gradient bucket, completing later."""
    tensor.fill_(float("nan"))
    return _Work()


def test_a_late_callback_still_makes_the_rank_a_receiver():
    watch = CollectiveNonFiniteWatch()
    checked = watch._wrap("all_reduce", _poisoning_all_reduce, TENSOR_OPS["all_reduce"])
    bucket = torch.ones(4)
    work = checked(bucket, async_op=True)
    watch.saw(3, "gradients")  # this rank's own check runs before the future's callback
    for callback in work.future.callbacks:
        callback(work.future)
    assert role_of(watch.summary(rank=0)) == "received"


def test_a_rank_that_saw_it_before_launching_is_the_producer():
    watch = CollectiveNonFiniteWatch()
    checked = watch._wrap("all_reduce", _poisoning_all_reduce, TENSOR_OPS["all_reduce"])
    watch.saw(3, "gradients")
    work = checked(torch.ones(4), async_op=True)
    for callback in work.future.callbacks:
        callback(work.future)
    assert role_of(watch.summary(rank=0)) == "producer"
