"""Rebalanced shards: split a global batch across data-parallel ranks so that a slow rank stops holding the
others in the next collective.

In synchronous data parallelism every step lasts as long as the slowest rank's data + compute; the others
wait in the gradient all-reduce. When one rank's cost grows with the samples it handles (a slow disk or
network mount, a slower core), giving it fewer samples and the others more equalises the finish times; the
global batch, and with the right loss scaling the gradient, stay the same (scale each rank's summed loss by
``world / global_batch`` so that DDP's mean over ranks is the global batch's mean).
"""

from __future__ import annotations

from typing import Sequence


def rebalance_shards(per_sample_ms: Sequence[float], fixed_ms: Sequence[float], total: int, *,
                     minimum: int = 1) -> list[int]:
    """Shares of ``total`` samples that equalise each rank's predicted busy time ``fixed + n * per_sample``.

    Solves ``fixed[r] + n[r] * per_sample[r] = T`` for one common ``T`` with ``sum(n) == total`` (water
    filling: a rank whose fixed cost alone exceeds ``T`` gets ``minimum``), then rounds by largest remainder.
    The same inputs give the same shares on every rank, so ranks that exchanged their timings agree without
    another collective.

    Args:
        per_sample_ms: per rank, the cost that grows with the samples it handles (ms per sample, >= 0), e.g.
            its data phase over its current share.
        fixed_ms: per rank, the cost per step that does not (ms, >= 0), e.g. its compute for a small model.
        total: the global batch (samples per step), at least ``minimum * ranks``.
        minimum: the fewest samples a rank keeps (default 1: every rank stays in the collective with data).

    Returns:
        ``n``: one share per rank, ``sum(n) == total``, each ``>= minimum``.

    Raises:
        ValueError: lengths differ, a cost is negative or not finite, or ``total`` is too small.
    """
    ranks = len(per_sample_ms)
    if ranks == 0 or len(fixed_ms) != ranks:
        raise ValueError(f"per_sample_ms and fixed_ms need one value per rank, got {ranks} and {len(fixed_ms)}")
    if any(not (0 <= float(v) < float("inf")) for v in (*per_sample_ms, *fixed_ms)):
        raise ValueError("costs must be finite and >= 0 ms")
    if minimum < 0 or total < minimum * ranks:
        raise ValueError(f"total {total} cannot give {ranks} ranks at least {minimum} samples each")
    rate = [max(float(v), 1e-9) for v in per_sample_ms]
    fixed = [float(v) for v in fixed_ms]
    pinned: set[int] = set()
    while True:  # water filling: ranks whose fixed cost is above the level keep the minimum
        free = [r for r in range(ranks) if r not in pinned]
        budget = total - minimum * len(pinned)
        level = (budget + sum(fixed[r] / rate[r] for r in free)) / sum(1 / rate[r] for r in free)
        exact = [float(minimum) if r in pinned else (level - fixed[r]) / rate[r] for r in range(ranks)]
        low = [r for r in free if exact[r] < minimum]
        if not low:
            break
        pinned.update(low)
    shares = [max(minimum, int(e)) for e in exact]
    for r in sorted(range(ranks), key=lambda r: exact[r] - int(exact[r]), reverse=True):
        if sum(shares) >= total:
            break
        shares[r] += 1
    while sum(shares) > total:  # only when flooring at the minimum overshot
        shares[max(range(ranks), key=lambda r: shares[r])] -= 1
    return shares
