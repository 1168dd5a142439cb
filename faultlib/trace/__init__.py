"""``faultlib trace -- python SCRIPT.py``: find the first non-finite value in an unmodified script.

Two passes over the script, each in its own process (:mod:`faultlib.trace.boot`):

1. **watch** — cheap checks installed globally: the outermost module's output (one reduction
   per forward), the tensor ``backward()`` is called on, and every optimizer's gradients
   before ``step()`` (global optimizer step pre-hook). The first check that trips records
   the step and which outermost forward began it, and stops the script (``--continue``
   keeps going and counts the steps that tripped).
2. **locate** — the script runs again, identically seeded; from the outermost forward that
   began the tripped step, :class:`faultlib.detect.nan_locator.NonFiniteLocator` checks every
   op, stops at the first born value, and writes a dump to replay the step.

A script that seeds its RNGs replays the same step; if the second pass does not see the value
again (non-deterministic script), the report keeps what the first pass saw, without the op.
"""

from faultlib.trace.session import TraceReport, trace_script

__all__ = ["TraceReport", "trace_script"]
