"""Assertions about time that hold on a busy machine: each compares with a reference measured in the same run.

A latency, a stall or a lateness measured in a case depends on the machine's load: the same service
answers in 3 ms on an idle laptop and in 150 ms on a CI runner shared with eight other jobs. So a
case never compares a time with an absolute number of milliseconds; it compares the faulted run with
a **reference** measured on the same machine in the same run:

* the **control** run (the same workload, no fault), or
* with ``faultlib run --no-control``, the faulted run's own steps **before the fault** (the steps
  whose ``faultlib.fault.window`` is ``before``).

The reference's values (one per step: a round's P99, a request's latency) give its median and its
**noise ceiling**, the largest value it reached: how high this machine, at this load, pushes the
quantity without any fault. On top of it:

* :meth:`Reference.assert_raised`: the fault pushed a value well above the reference (a ratio to its
  median) and above its noise ceiling;
* :meth:`Reference.assert_restored`: a value is back within the reference's noise (after the fault,
  with the mitigation), and nearer to it than to the faulted level;
* :meth:`Reference.allowance`: how much later than a deadline an answer may arrive on this machine
  now (a margin plus the reference's own noise), for "answered at the deadline" checks;
* :func:`share`: a ratio of two quantities measured side by side (CPU time over wall time, say) as
  a fraction of the same ratio in the reference, for properties a contended CPU scales.

Where the reference's own noise reaches the faulted value, the run cannot tell the fault from the
machine: the helpers raise :class:`~faultlib.errors.TimingInconclusive`, which the assertion suite
reports as a skipped test with the measured reason (``inconclusive: ...``), never as a verdict that
depends on the load.

A value checked against an upper bound (:meth:`Reference.assert_restored`, :func:`assert_at_most`) is
often a maximum or a P99 over a small window: one request during which the scheduler ran other processes
instead of the service (80 ms on a loaded 2-core runner) decides it. Given ``waits``, the measurements
the value summarises, each with how long the measured process(es) waited for a CPU during it (the
kernel's run-queue wait, :func:`faultlib.runqueue.run_queue_wait_ms`, recorded per request by the
repro), a value above the bound whose every offending measurement exceeds the bound by no more than it
waited for a CPU is inconclusive, with the measurements in the reason; a measurement that exceeds the
bound by more than its wait (a mitigation that did nothing: the requests wait on the fault, not for a
CPU) still fails. Only where the fault's own effect is not CPU time (a delay, a sleep, a lock): a
CPU-bound fault's cost grows with the load's waits, and removing them from the checked side alone
could excuse it. ``benchmarks/contention.py`` checks that the cases using these helpers give the
same verdicts with eight CPU-bound processes on two cores as idle, and still fail without their
mitigation.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from faultlib.errors import TimingInconclusive

CONTROL = "control"
BEFORE = "faulted run before the fault"
MIN_VALUES = 3
"""Fewer reference values than this cannot show the machine's noise: the helpers say inconclusive."""


@dataclass(frozen=True)
class Waited:
    """One measurement of a checked value and how long the measured process(es) waited for a CPU during it.

    Attributes:
        value: the measurement (a request's latency), in the checked value's unit.
        waited: run-queue wait during it, same unit (None: not measured; it then explains nothing).
        label: which measurement, for messages (``request 7``).
    """

    value: float
    waited: float | None
    label: str = ""


@dataclass(frozen=True)
class Reference:
    """Values of one quantity measured without the fault, on the same machine, in the same run.

    Attributes:
        values: one value per step (ms, or whatever ``unit`` says), in step order.
        source: ``control`` or ``faulted run before the fault`` (its own steps before the fault's window).
        what: what the values are, for messages (``"/health P99 per round"``).
        unit: the values' unit, for messages (default ``ms``).
    """

    values: tuple[float, ...]
    source: str
    what: str
    unit: str = "ms"

    def __post_init__(self) -> None:
        if len(self.values) < MIN_VALUES:
            raise TimingInconclusive(f"inconclusive: only {len(self.values)} value(s) of {self.what} in the "
                                     f"{self.source} (at least {MIN_VALUES} are needed to see this machine's noise)")

    @property
    def median(self) -> float:
        return float(statistics.median(self.values))

    @property
    def ceiling(self) -> float:
        """The noise ceiling: the largest value the reference reached."""
        return float(max(self.values))

    def _q(self, value: float) -> str:
        return f"{value:.4g} {self.unit}".rstrip()

    def describe(self) -> str:
        """``/health P99 per round in the control: median 4.1 ms, up to 22.6 ms (18 values)``."""
        return (f"{self.what} in the {self.source}: median {self._q(self.median)}, up to "
                f"{self._q(self.ceiling)} ({len(self.values)} values)")

    def assert_raised(self, value: float, *, factor: float, what: str) -> None:
        """Assert that the fault pushed ``value`` to at least ``factor`` times the reference's median and
        above its noise ceiling.

        Raises:
            AssertionError: ``value`` is below ``factor`` x the median (the fault did not show).
            TimingInconclusive: it is above ``factor`` x the median, but the reference itself reached it.
        """
        if value < factor * self.median:
            raise AssertionError(f"{what} is {self._q(value)}, less than {factor:g}x the median of "
                                 f"{self.describe()}")
        if value <= self.ceiling:
            raise TimingInconclusive(f"inconclusive: {what} is {self._q(value)}, but {self.describe()}: "
                                     "this machine's noise reaches the faulted value")

    def assert_restored(self, value: float, *, faulted: float, what: str, tolerance: float = 3.0,
                        waits: Sequence[Waited] | None = None) -> None:
        """Assert that ``value`` (measured after the fault, with the mitigation) is back to the reference:
        nearer, as a ratio, to the reference's noise ceiling than to ``faulted``, the value during the
        fault (at most their geometric mean, ``sqrt(ceiling * faulted)``).

        A ratio to the faulted level, not a multiple of the ceiling alone: a shared machine's load
        changes within a run, so a quiet reference window (a ceiling of 3 ms, say) says little about
        the next window's spikes (19 ms, measured with ``--no-control`` at load 15), while a
        mitigation that did nothing leaves ``value`` at ``faulted``.

        Args:
            value: the quantity after the fault.
            faulted: the same quantity during the fault (what "not restored" looks like).
            what: the quantity, for messages.
            tolerance: the fault must have raised the quantity above ``tolerance`` x the noise ceiling
                for the comparison to mean anything (default 3: a 3x slowdown of the machine alone
                is not taken for the fault).
            waits: the measurements ``value`` is the maximum or a percentile of, each with its wait for a
                CPU (:class:`Waited`): above the allowed value, see :func:`assert_at_most`.

        Raises:
            AssertionError: ``value`` is above the geometric mean of the ceiling and ``faulted``.
            TimingInconclusive: ``faulted`` itself is within ``tolerance`` x the noise ceiling: the run
                cannot tell restored from not; or ``value`` is above the allowed value only by what its
                offending measurements waited for a CPU (``waits``).
        """
        if faulted <= tolerance * self.ceiling:
            raise TimingInconclusive(f"inconclusive: during the fault {what} was {self._q(faulted)}, within "
                                     f"{tolerance:g}x of {self.describe()}: this machine's noise hides the fault")
        midpoint = (self.ceiling * faulted) ** 0.5  # the geometric middle between normal and faulted
        assert_at_most(value, midpoint, what=what, unit=self.unit, waits=waits,
                       bound=f"not back to {self.describe()} (allowed: {self._q(midpoint)}, the geometric mean "
                             f"of that and the {self._q(faulted)} during the fault)")

    def allowance(self, margin: float) -> float:
        """How late past a deadline an answer may arrive on this machine now: ``margin`` plus the
        reference's noise ceiling (the values being the service's own time per answer, beyond what
        it waited on)."""
        return margin + self.ceiling


def step_reference(evidence: Any, span_name: str, value: str | Callable[[dict[str, Any]], float | None], *,
                   what: str, unit: str = "ms") -> Reference:
    """The reference for one quantity recorded on step spans: every step of the control run, or,
    when the run has no control (``--no-control``), the faulted run's steps before the fault.

    Args:
        evidence: the assertion suite's ``evidence`` fixture.
        span_name: the step spans' name (``load.round``, ``serve.request``).
        value: the span attribute holding the quantity, or a function of the attributes returning it
            (None: the step has no value and is left out).
        what: the quantity, for messages.
        unit: its unit, for messages.

    Raises:
        TimingInconclusive: fewer than :data:`MIN_VALUES` values.
    """
    get = value if callable(value) else (lambda attributes: attributes.get(value))
    if evidence.has_control:
        spans, source = evidence.control.steps(span_name), CONTROL
    else:
        spans = [s for s in evidence.faulted.steps(span_name) if s.attributes.get("faultlib.fault.window") == "before"]
        source = BEFORE
    return Reference(tuple(float(v) for v in _values(get, spans)), source, what, unit)


def assert_at_most(value: float, allowed: float, *, what: str, bound: str, unit: str = "ms",
                   waits: Sequence[Waited] | None = None) -> None:
    """Assert ``value <= allowed``; above it, inconclusive where waiting for a CPU explains the excess.

    ``value`` is the maximum or a percentile (linear interpolation included) of the measurements in
    ``waits``: such a statistic never rises when a measurement falls. So when every measurement above
    ``allowed`` is at most ``allowed`` once its wait for a CPU is taken off, the value would have been
    within ``allowed`` had the machine run the measured processes whenever they were ready: the machine's
    load, not the code, put it above, and the check is inconclusive. One measurement above ``allowed`` by
    more than it waited (or with an unmeasured wait) fails the check.

    Args:
        value: the checked value.
        allowed: its upper bound, same unit.
        what: the value, for messages (``"the P99 before the delay"``).
        bound: what exceeding ``allowed`` means, for messages (``"not back to ... (allowed: 38 ms, ...)"``).
        unit: the unit, for messages.
        waits: the measurements ``value`` summarises, with their waits (None: no explanation is sought).

    Raises:
        AssertionError: ``value > allowed`` and the waits do not explain it.
        TimingInconclusive: ``value > allowed``, and every measurement above ``allowed`` exceeds it by no
            more than it waited for a CPU.
    """
    if value <= allowed:
        return
    q = (lambda v: f"{v:.4g} {unit}".rstrip())
    failure = f"{what} is {q(value)}, {bound}"
    if waits is None:
        raise AssertionError(failure)
    offending = [w for w in waits if w.value > allowed]
    unexplained = [w for w in offending if w.waited is None or w.value - w.waited > allowed]

    def told(w: Waited) -> str:
        waited = "its wait for a CPU not measured" if w.waited is None else f"{q(w.waited)} of it waiting for a CPU"
        return f"{w.label or 'a measurement'}: {q(w.value)}, {waited}"

    if offending and not unexplained:
        raise TimingInconclusive(f"inconclusive: {failure}; but {len(offending)} measurement(s) above "
                                 f"{q(allowed)} exceeded it by no more than they waited for a CPU ("
                                 + "; ".join(told(w) for w in offending)
                                 + "): this machine's load, not the code, put it above")
    raise AssertionError(failure + ("; not explained by waiting for a CPU (" + "; ".join(told(w) for w in unexplained)
                                    + ")" if unexplained else "; no measurement given is above it"))


def share(numerators: Iterable[float], denominators: Iterable[float]) -> float:
    """``sum(numerators) / sum(denominators)``: e.g. CPU ms over wall ms of the same inferences (the share of
    a core a busy thread got). Raises :class:`TimingInconclusive` when the denominators sum to 0."""
    top, bottom = sum(numerators), sum(denominators)
    if bottom <= 0:
        raise TimingInconclusive("inconclusive: nothing was measured to take a share of")
    return top / bottom


def _values(get: Callable[[dict[str, Any]], Any], spans) -> list[float]:
    out = []
    for span in spans:
        v = get(span.attributes)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(float(v))
    return out
