"""Request latency against a deadline and a P99 objective (a serving SLO check).

A service that calls a slow downstream must still answer every request within its
deadline, with an explicit timeout status when it had to give up; a P99 objective catches
the slowdown itself. :class:`DeadlineSLO` watches both from the caller's side:

* **late answer** (error, one finding per request): an answer arrived more than
  ``margin_ms`` after the deadline, so the service did not enforce it (a hang, a missing
  timeout on the downstream call, an unbounded retry);
* **timeout ratio** (warning): more than ``max_timeout_ratio`` of the answers carried the
  timeout status;
* **P99** (warning): the 99th percentile latency exceeds ``p99_objective_ms``.

Percentiles use :func:`statistics.quantiles` with the ``inclusive`` method (linear
interpolation between order statistics, as ``numpy.percentile``'s default); latencies are
milliseconds throughout.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from faultlib.errors import DetectorError
from faultlib.findings import Finding, Severity


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0 < q < 100) of ``values``, linearly interpolated.

    Raises:
        DetectorError: ``values`` is empty or ``q`` is out of range.
    """
    if not values:
        raise DetectorError("percentile of no values: observe at least one request first")
    if not 0 < q < 100:
        raise DetectorError(f"percentile q must be in (0, 100), got {q}")
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=1000, method="inclusive")
    return float(cuts[round(q * 10) - 1])


@dataclass(frozen=True)
class LatencyStats:
    """Summary of the observed requests (latencies in ms).

    Attributes:
        count: requests observed.
        timeouts: answers with the timeout status.
        late: answers later than deadline + margin.
        p50_ms, p99_ms, max_ms: latency percentiles and maximum.
    """

    count: int
    timeouts: int
    late: int
    p50_ms: float
    p99_ms: float
    max_ms: float


class DeadlineSLO:
    """Checks per-request latencies against a deadline and a P99 objective.

    Args:
        deadline_ms: the service's per-request deadline in ms.
        p99_objective_ms: the P99 latency objective in ms (a warning above it).
        margin_ms: how late after the deadline an answer may still arrive (scheduling,
            serialisation), default 50 ms.
        max_timeout_ratio: the fraction of timeout answers tolerated, default 0.

    Call order: :meth:`observe` once per answered request, then :meth:`check` (or
    :meth:`stats`) as often as wanted.

    Raises:
        DetectorError: a non-positive deadline or objective, a negative margin, or a ratio outside [0, 1].
    """

    name = "latency_slo"

    def __init__(self, *, deadline_ms: float, p99_objective_ms: float, margin_ms: float = 50.0,
                 max_timeout_ratio: float = 0.0):
        if deadline_ms <= 0 or p99_objective_ms <= 0:
            raise DetectorError("deadline_ms and p99_objective_ms must be > 0 (milliseconds)")
        if margin_ms < 0 or not 0 <= max_timeout_ratio <= 1:
            raise DetectorError("margin_ms must be >= 0 and max_timeout_ratio in [0, 1]")
        self.deadline_ms = float(deadline_ms)
        self.p99_objective_ms = float(p99_objective_ms)
        self.margin_ms = float(margin_ms)
        self.max_timeout_ratio = float(max_timeout_ratio)
        self.latencies_ms: list[float] = []
        self.timeout_steps: list[int | None] = []
        self.late = 0

    def observe(self, latency_ms: float, *, timed_out: bool, step: int | None = None) -> Finding | None:
        """Record one answered request.

        Args:
            latency_ms: time from sending the request to the complete answer, in ms.
            timed_out: the answer carried the service's timeout status.
            step: the request's index, for findings' locations.

        Returns:
            A ``late answer`` finding (error) when the answer came after deadline + margin, else None.
        """
        self.latencies_ms.append(float(latency_ms))
        if timed_out:
            self.timeout_steps.append(step)
        if latency_ms <= self.deadline_ms + self.margin_ms:
            return None
        self.late += 1
        return Finding(self.name, Severity.ERROR,
                       f"answer after {latency_ms:.1f} ms, past the {self.deadline_ms:g} ms deadline "
                       f"(+{self.margin_ms:g} ms margin): the service did not enforce its deadline",
                       {"step": step} if step is not None else {},
                       {"latency_ms": latency_ms, "deadline_ms": self.deadline_ms, "margin_ms": self.margin_ms})

    def stats(self) -> LatencyStats:
        """Percentiles and counts so far.

        Raises:
            DetectorError: no request observed yet.
        """
        if not self.latencies_ms:
            raise DetectorError("DeadlineSLO has no observations: call observe() for each request first")
        values = self.latencies_ms
        return LatencyStats(count=len(values), timeouts=len(self.timeout_steps), late=self.late,
                            p50_ms=percentile(values, 50), p99_ms=percentile(values, 99), max_ms=max(values))

    def check(self) -> list[Finding]:
        """Findings for the timeout ratio and the P99 objective (late answers come from :meth:`observe`).

        Raises:
            DetectorError: no request observed yet.
        """
        stats = self.stats()
        findings = []
        evidence = {"count": stats.count, "timeouts": stats.timeouts, "p50_ms": round(stats.p50_ms, 3),
                    "p99_ms": round(stats.p99_ms, 3), "deadline_ms": self.deadline_ms}
        ratio = stats.timeouts / stats.count
        if ratio > self.max_timeout_ratio:
            first = self.timeout_steps[0]
            findings.append(Finding(
                self.name, Severity.WARNING,
                f"{stats.timeouts} of {stats.count} requests ({ratio:.0%}) answered with a timeout status, "
                f"above the {self.max_timeout_ratio:.0%} budget: a downstream call exceeds "
                f"the {self.deadline_ms:g} ms deadline",
                {"step": first} if first is not None else {}, {**evidence, "timeout_ratio": round(ratio, 4)}))
        if stats.p99_ms > self.p99_objective_ms:
            findings.append(Finding(
                self.name, Severity.WARNING,
                f"P99 latency {stats.p99_ms:.1f} ms is above the {self.p99_objective_ms:g} ms objective "
                f"(P50 {stats.p50_ms:.1f} ms)", {}, {**evidence, "p99_objective_ms": self.p99_objective_ms}))
        return findings
