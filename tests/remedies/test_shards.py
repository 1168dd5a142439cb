"""rebalance_shards: shares that equalise the ranks' predicted busy time, summing to the global batch."""

from __future__ import annotations

import pytest

from faultlib.remedies import rebalance_shards


def busy(per_sample, fixed, shares):
    return [f + n * p for p, f, n in zip(per_sample, fixed, shares)]


def test_equal_ranks_keep_equal_shares_and_a_slow_rank_gets_fewer():
    assert rebalance_shards([0.02, 0.02], [1, 1], 64) == [32, 32]
    shares = rebalance_shards([0.02, 0.04], [1, 1], 64)
    assert shares == [43, 21] and sum(shares) == 64
    times = busy([0.02, 0.04], [1, 1], shares)
    assert max(times) - min(times) <= 0.04  # equal within one sample's cost


def test_a_rank_whose_fixed_cost_alone_is_too_high_keeps_the_minimum():
    # rank 2 loads at 0.5 ms per sample: giving it even 2 samples would make the others wait
    assert rebalance_shards([0.002, 0.002, 0.5, 0.002], [1, 1, 1, 1], 64) == [21, 21, 1, 21]
    assert rebalance_shards([0.002, 0.5], [1.2, 1.3], 64, minimum=4) == [60, 4]


def test_the_predicted_step_time_drops_against_equal_shares():
    per_sample, fixed = [0.05 / 32, 16.3 / 32], [1.2, 1.3]
    shares = rebalance_shards(per_sample, fixed, 64)
    assert sum(shares) == 64 and max(busy(per_sample, fixed, shares)) < max(busy(per_sample, fixed, [32, 32])) / 5


@pytest.mark.parametrize("args, match", [
    (([1], [1, 2], 4), "one value per rank"), (([-1, 1], [1, 1], 4), "finite"),
    (([1, float("nan")], [1, 1], 4), "finite"), (([1, 1], [1, 1], 1), "cannot give")])
def test_bad_input_is_refused(args, match):
    with pytest.raises(ValueError, match=match):
        rebalance_shards(*args)
