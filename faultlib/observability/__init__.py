"""Observability that is proven: a case's PromQL evaluated by a real Prometheus over the run's metrics.

``promql.json`` itself is evidence (:mod:`faultlib.evidence.promql` reads it back for assertions).

Modules: :mod:`~faultlib.observability.prometheus` (promtool backfill, a loopback server, range
queries), :mod:`~faultlib.observability.windows` (each phase's before/during/after/run time windows
from its spans), :mod:`~faultlib.observability.evaluate` (``promql.json`` for a run; the runner's
step) and
:mod:`~faultlib.observability.sparkline` (the one-line pictures of ``faultlib run``'s summary).
"""

from faultlib.observability.evaluate import evaluate_run, record_promql
from faultlib.observability.windows import Window, phase_windows

__all__ = ["Window", "evaluate_run", "phase_windows", "record_promql"]
