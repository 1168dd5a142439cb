"""The garbage collector's full collections held back while a static analysis builds its long-lived heap.

A static check parses every file of a program and keeps each tree, its index and its caches until the report is
made: hundreds of thousands of objects that live for the whole analysis. CPython's collector counts allocations
and, every so often, runs a *full* (generation 2) collection that traverses every tracked object; while the heap
only grows, each such pass finds next to nothing and costs time in proportion to the heap (on the blocking
check's 219-file benchmark service, 7 full passes were ~15% of the CPU time). :func:`analysis_heap` raises the
threshold of the oldest generation while the analysis runs, so the young generations still reclaim short-lived
cycles, and restores the caller's thresholds afterwards (a full collection then runs at its usual pace). What the
analysis finds does not depend on it: collection frees unreachable objects only.

Source of the method: the CPython ``gc`` module documentation ("gc.set_threshold", "gc.freeze": "to avoid
collection of long-lived objects") and the same practice in mypy's build (``gc.set_threshold`` while it loads
the program).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: the oldest generation's threshold while an analysis runs: in practice never reached by one analysis
HELD_BACK = 1_000_000


@contextmanager
def analysis_heap() -> Iterator[None]:
    """Run the body with the collector's full collections held back (see the module docstring).

    Nested uses keep the outermost caller's thresholds: the inner one restores what it found, the held-back ones.
    """
    old = gc.get_threshold()
    gc.set_threshold(old[0], old[1], max(old[2], HELD_BACK))
    try:
        yield
    finally:
        gc.set_threshold(*old)


__all__ = ["HELD_BACK", "analysis_heap"]
