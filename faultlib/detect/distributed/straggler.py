"""Straggler detection: per-rank step-phase telemetry and a cross-rank detector that names the slow rank and phase.

Each rank times every step in three phases (milliseconds):

- ``data``: waiting for the next batch (the ``DataLoader``, decoding, a slow file system);
- ``compute``: forward, backward and the optimizer step, *minus* the time spent inside collectives;
- ``collective``: time inside collectives issued during the step (the :class:`FlightRecorder`'s entries: the
  Python API, and DDP's bucketed all-reduces), as the union of their intervals. DDP's buckets stay on DDP's C++
  all-reduce by default, so their wait is measured per backward (``wait_ns``: from the last gradient to the end
  of DDP's wait for every bucket), not per bucket; ``FlightRecorder(ddp_per_bucket=True)`` gives per-bucket
  intervals through DDP's Python comm hook instead.

In synchronous data parallelism a slow rank shows a *longer* own phase (data or compute) and a *shorter*
collective wait, while every healthy rank waits for it inside the next collective (DDP's backward all-reduce):
its lost time reappears as the others' collective wait. The detector uses both sides of that signature (a
rank's whole backward wall time cannot tell: DDP's all-reduce inside it equalises it across ranks, as
traceopt-ai/traceml#252 found; the collective time is subtracted from the phase it overlapped).

Every ``every`` steps each rank reduces its last window to one median per phase and the ranks exchange those
four numbers with one ``all_gather`` (32 bytes per rank); every rank then runs the same deterministic
:class:`StragglerDetector` on the same matrix, so every rank reaches the same verdict at the same step (a
mitigation, such as rebalancing the shards, needs no further agreement).

Method (per window, per rank ``r`` and own phase ``p`` in ``data``/``compute``), after Minder (Deng et al.,
"Minder: Faulty Machine Detection for Large-scale Distributed Model Training", NSDI 2025), which compares each
machine's metrics with the other machines' (similarity) and alerts only on a deviation that persists
(continuity), arXiv:2411.01791; we use robust statistics in place of its per-metric LSTM-VAE denoising:

1. *excess*: ``x[r,p] - median(x[s,p] for s != r)`` exceeds ``max(min_excess_ms, rel_excess * busy_ref)``,
   ``busy_ref`` the other ranks' median data + compute time per step (a rank must cost the job a real share of
   a step, not a jitter of microseconds);
2. *outlier* (worlds of 3 or more): the modified z-score ``0.6745 * (x[r,p] - median) / MAD`` exceeds
   ``z_threshold`` (3.5, Iglewicz & Hoaglin, "How to Detect and Handle Outliers", ASQC 1993), or MAD is 0;
   with 2 ranks a median/MAD cannot tell which one deviates, and rule 3 decides;
3. *the others waited*: ``median(wait[s] for s != r) - wait[r] >= wait_share * excess``;
4. *persistence*: the same (rank, phase) wins ``persist`` consecutive windows (a per-step median per window
   already ignores single-step spikes).

Detection latency is bounded: a slowdown that starts at step ``k`` and breaks rules 1-3 in every window it
touches is named within ``every * (persist + 1) - 1`` steps of its start (the window holding ``k`` may be
diluted, then ``persist`` whole windows). A marginal one (an excess near the floors, with jitter) can miss a
window and take ``every`` steps more per miss (benchmarks/straggler.py: at most 20 steps at 1.5x).
The window medians cost about 20 µs per step; the exchange is one small collective every ``every`` steps.
"""

from __future__ import annotations

import collections
import statistics
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from faultlib import runqueue
from faultlib.findings import Finding, Severity

PHASES = ("data", "compute", "collective")
#: the phases a rank can be slow in (collective wait is where the *others* show it)
OWN_PHASES = ("data", "compute")
#: columns of one rank's window row: the three phases and the whole step (ms, medians over the window)
COLUMNS = (*PHASES, "step")
DETECTOR = "straggler"
#: a ratio of phase times is shown only over a base of at least this much (ms per step) ...
RATIO_BASE_MS = 1.0
#: ... and up to this ratio; past either, the finding gives both times in ms
RATIO_MAX = 10.0


@dataclass(frozen=True)
class Straggler:
    """The detector's verdict: ``rank`` is slow in ``phase``.

    Attributes:
        rank: the slow rank.
        phase: ``data`` or ``compute``.
        step: the last step of the window that confirmed it (the verdict's step).
        first_step: the first step of the first window of the streak (the slowdown began at or before its end).
        excess_ms: its phase time minus the other ranks' median, per step (window medians, ms).
        wait_ms: the other ranks' median collective wait minus its own, per step (ms).
        ratio: its phase time over the other ranks' median (inf when theirs is 0).
        windows: consecutive windows that named it.
        table: the confirming window, one row per rank: ``{phase: ms}`` for ``data``, ``compute``,
            ``collective``, ``step``.
    """

    rank: int
    phase: str
    step: int
    first_step: int
    excess_ms: float
    wait_ms: float
    ratio: float
    windows: int
    table: list[dict[str, float]] = field(default_factory=list)

    @property
    def others_ms(self) -> float:
        """The other ranks' median time in this phase, per step (ms; from ``excess_ms`` and ``ratio``)."""
        return 0.0 if self.ratio == float("inf") or self.ratio <= 1 else self.excess_ms / (self.ratio - 1)

    def _how_slow(self) -> str:
        """``+E ms per step (Rx the other ranks)`` while the others' time is a base a ratio means something
        (>= :data:`RATIO_BASE_MS` and the ratio <= :data:`RATIO_MAX`); else the times themselves: a ratio over a
        near-zero phase (a DataLoader whose batches are ready) magnifies timer noise ("326x")."""
        others = self.others_ms
        if others >= RATIO_BASE_MS and self.ratio <= RATIO_MAX:
            return f"+{self.excess_ms:.1f} ms per step ({self.ratio:.2f}x the other ranks)"
        label = {"data": "data loading"}.get(self.phase, self.phase)
        return f"{label} {others + self.excess_ms:.1f} ms/step vs {others:.1f} ms on the others"

    def to_finding(self, *, severity: Severity = Severity.WARNING) -> Finding:
        """The verdict as a :class:`Finding` (kind ``straggler_rank``; ``location.step``; rank and phase in
        ``evidence``)."""
        return Finding(
            detector=DETECTOR, kind="straggler_rank", severity=severity,
            message=(f"rank {self.rank} is a straggler in its {self.phase} phase: {self._how_slow()}, while they wait "
                     f"{self.wait_ms:.1f} ms longer in collectives; confirmed over {self.windows} windows ending at "
                     f"step {self.step}"),
            location={"step": self.step},
            evidence={"rank": self.rank, "phase": self.phase, "first_step": self.first_step,
                      "excess_ms": round(self.excess_ms, 3), "wait_ms": round(self.wait_ms, 3),
                      "ratio": round(self.ratio, 3) if self.ratio != float("inf") else None,
                      "windows": self.windows, "table": self.table})


def _median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


class StragglerDetector:
    """The cross-rank rule on window medians (no torch; every rank runs it on the same matrix).

    Args:
        persist: consecutive windows the same (rank, phase) must win before the verdict (default 2).
        min_excess_ms: smallest excess that can count, per step (default 2 ms: a rank descheduled for a few ms
            is jitter).
        rel_excess: smallest excess as a share of the other ranks' data + compute time per step (default 0.25).
        wait_share: share of the excess the other ranks must have waited in collectives (default 0.5).
        z_threshold: modified z-score for worlds of 3 or more ranks (default 3.5, Iglewicz & Hoaglin 1993).

    Raises:
        ValueError: a parameter out of range.
    """

    def __init__(self, *, persist: int = 2, min_excess_ms: float = 2.0, rel_excess: float = 0.25,
                 wait_share: float = 0.5, z_threshold: float = 3.5):
        if persist < 1:
            raise ValueError(f"persist must be >= 1 window, got {persist}")
        if min_excess_ms < 0 or rel_excess < 0 or not 0 <= wait_share <= 1 or z_threshold <= 0:
            raise ValueError("min_excess_ms, rel_excess >= 0, 0 <= wait_share <= 1 and z_threshold > 0 required")
        self.persist = persist
        self.min_excess_ms = min_excess_ms
        self.rel_excess = rel_excess
        self.wait_share = wait_share
        self.z_threshold = z_threshold
        self._streak: tuple[int, str] | None = None
        self._count = 0
        self._first_step = 0
        self.active: Straggler | None = None  # the verdict in force (cleared after `persist` clean windows)
        self._clean = 0

    def candidate(self, table: Sequence[Sequence[float]]) -> tuple[int, str, float, float, float] | None:
        """The (rank, phase, excess_ms, wait_ms, ratio) that breaks rules 1-3 in one window, the largest excess
        first, or None. ``table[r]`` is rank r's row of :data:`COLUMNS` (ms)."""
        world = len(table)
        if world < 2:
            return None
        col = {name: [float(row[i]) for row in table] for i, name in enumerate(COLUMNS)}
        busy = [d + c for d, c in zip(col["data"], col["compute"])]
        best = None
        for p in OWN_PHASES:
            values = col[p]
            med_all = _median(values)
            mad = _median([abs(v - med_all) for v in values])
            for r in range(world):
                others = [values[s] for s in range(world) if s != r]
                ref = _median(others)
                excess = values[r] - ref
                floor = max(self.min_excess_ms, self.rel_excess * _median([busy[s] for s in range(world) if s != r]))
                if excess <= floor:
                    continue
                if world >= 3 and mad > 0 and 0.6745 * (values[r] - med_all) / mad <= self.z_threshold:
                    continue
                wait = _median([col["collective"][s] for s in range(world) if s != r]) - col["collective"][r]
                if wait < self.wait_share * excess:
                    continue
                if best is None or excess > best[2]:
                    best = (r, p, excess, wait, values[r] / ref if ref > 0 else float("inf"))
        return best

    def observe(self, table: Sequence[Sequence[float]], *, step: int,
                first_step: int | None = None) -> Straggler | None:
        """Feed one window; returns a *new* verdict on the window that confirms it, else None.

        Args:
            table: one row per rank, :data:`COLUMNS` medians over the window (ms).
            step: the window's last step.
            first_step: the window's first step (default ``step``).
        """
        found = self.candidate(table)
        if found is None:
            self._streak, self._count = None, 0
            self._clean += 1
            if self.active is not None and self._clean >= self.persist:
                self.active = None
            return None
        self._clean = 0
        rank, phase, excess, wait, ratio = found
        if self._streak == (rank, phase):
            self._count += 1
        else:
            self._streak, self._count = (rank, phase), 1
            self._first_step = step if first_step is None else first_step
        in_force = self.active is not None and (self.active.rank, self.active.phase) == (rank, phase)
        if self._count < self.persist or in_force:
            return None
        rows = [{name: round(float(v), 3) for name, v in zip(COLUMNS, row)} for row in table]
        self.active = Straggler(rank=rank, phase=phase, step=step, first_step=self._first_step, excess_ms=excess,
                                wait_ms=wait, ratio=ratio, windows=self._count, table=rows)
        return self.active


def _union_ms(intervals: list[tuple[int, int]], lo: int, hi: int) -> float:
    """Length of the union of ``intervals`` (ns) clipped to ``[lo, hi]``, in ms."""
    total, end = 0, lo
    for start, stop in sorted((max(a, lo), min(b, hi)) for a, b in intervals):
        if stop <= start:
            continue
        if start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total / 1e6


class StragglerMonitor:
    """Time each step's phases on this rank, publish them, exchange window medians, and name a straggler.

    ``every`` ranks must call :meth:`end_step` the same number of times (it issues one ``all_gather`` every
    ``every`` steps)::

        recorder = FlightRecorder(dump_dir).install()   # records DDP's bucket all-reduces too
        monitor = StragglerMonitor(flight_recorder=recorder, evidence=ctx.evidence)
        for step in range(steps):
            monitor.begin_step(step)
            with monitor.phase("data"):
                x, y = next(batches)
            with monitor.phase("compute"):
                loss_fn(ddp(x), y).backward(); opt.step(); opt.zero_grad()
            verdict = monitor.end_step()          # a Straggler on every rank at the same step, or None

    Args:
        every: steps per window (default 5); one exchange per window.
        flight_recorder: the installed :class:`FlightRecorder` whose entries give the collective wait; without
            one, time collectives yourself with ``phase("collective")`` (else rule 3 can never hold).
        evidence: a faultlib evidence ``Recorder`` (``ctx.evidence``): metrics
            ``faultlib_step_phase_duration_ms{step_phase}`` (histogram, per step),
            ``faultlib_step_phase_window_ms{step_phase}`` (gauge, window median),
            ``faultlib_straggler_flagged{step_phase}`` (watermark gauge, 1 on the named rank while the verdict is
            in force) and ``faultlib_straggler_verdicts_total{step_phase}`` (counter on the named rank), each with
            the recorder's ``rank`` label (``step_phase``, not ``phase``: the evidence's ``phase`` is
            control/faulted).
        exchange: ``row -> table`` (one row per rank); default: ``torch.distributed.all_gather`` of a float64
            tensor on the default group (recorded by the flight recorder like any collective).
        detector: a :class:`StragglerDetector` (default: its defaults with ``persist``).
        persist: windows to confirm (default 2), when ``detector`` is not given.
        keep: steps of :attr:`history` kept (default 10,000; oldest dropped first).
        warmup: steps whose windows are exchanged but not judged (default ``every``: the first window holds
            one-off costs, e.g. DDP's first iteration and the allocator's warm-up).

    Attributes:
        last_table: the latest exchanged window (rows of :data:`COLUMNS`), or None.
        history: the last ``keep`` steps' own times ``{"step", "data", "compute", "collective", "step_ms"}`` (ms),
            this rank (a ``collections.deque``), and ``waited_ms``: how long this rank's thread waited for a CPU
            between :meth:`begin_step` and :meth:`end_step` (:func:`faultlib.runqueue.run_queue_wait_ms`; None
            where the kernel does not count it). Not exchanged and not judged: the detector sees what the job saw.
    """

    def __init__(self, *, every: int = 5, flight_recorder: Any = None, evidence: Any = None,
                 exchange: Callable[[list[float]], list[list[float]]] | None = None,
                 detector: StragglerDetector | None = None, persist: int = 2, warmup: int | None = None,
                 keep: int = 10_000):
        if every < 1:
            raise ValueError(f"every must be >= 1 step, got {every}")
        self.every = every
        self.warmup = every if warmup is None else warmup
        self._steps = 0
        self.recorder = flight_recorder
        self.detector = detector or StragglerDetector(persist=persist)
        self._exchange = exchange or _all_gather
        self.history: collections.deque[dict[str, float | None]] = collections.deque(maxlen=max(keep, every))
        self.last_table: list[list[float]] | None = None
        self._step: int | None = None
        self._start = 0
        self._waited: float | None = None
        self._spans: list[tuple[str, int, int]] = []
        self._window: list[dict[str, float]] = []
        self._metrics = None
        if evidence is not None:
            flagged = "1 while the straggler detector names this rank in this phase (highest since the last snapshot)"
            self._metrics = (
                evidence.histogram("faultlib_step_phase_duration_ms", "time per step in each phase on this rank", "ms"),
                evidence.gauge("faultlib_step_phase_window_ms",
                               "median time per step in each phase over the last window", "ms"),
                evidence.watermark("faultlib_straggler_flagged", flagged, keep="max"),
                evidence.counter("faultlib_straggler_verdicts_total", "straggler verdicts naming this rank, by phase"))
            for p in OWN_PHASES:
                self._metrics[3].add(0, step_phase=p)
        self._warned = False

    def begin_step(self, step: int) -> None:
        """Start timing ``step`` (the steps of one rank must be in order)."""
        self._step = step
        self._spans = []
        self._waited = runqueue.run_queue_wait_ms()
        self._start = time.monotonic_ns()

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time a phase of the current step: ``data``, ``compute`` or ``collective``.

        Raises:
            ValueError: an unknown phase.
            RuntimeError: outside :meth:`begin_step` / :meth:`end_step`.
        """
        if name not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {name!r}")
        if self._step is None:
            raise RuntimeError("phase() outside a step: call begin_step(step) first")
        start = time.monotonic_ns()
        try:
            yield
        finally:
            self._spans.append((name, start, time.monotonic_ns()))

    def _collectives(self, lo: int, hi: int) -> list[tuple[int, int]]:
        if self.recorder is None:
            return []
        out = []
        for e in self.recorder.entries_since(lo):
            if e["start_ns"] >= hi:
                continue
            wait = e.get("wait_ns")  # DDP's built-in buckets: the rank's wait after its last gradient
            if wait is not None and e["end_ns"]:
                out.append((e["end_ns"] - wait, e["end_ns"]))
            else:
                out.append((e["start_ns"], e["end_ns"] or hi))
        return out

    def end_step(self) -> Straggler | None:
        """Close the step; at each window's end exchange the medians and run the detector.

        Returns:
            a new :class:`Straggler` verdict (the same on every rank), or None.
        """
        if self._step is None:
            raise RuntimeError("end_step() without begin_step()")
        end = time.monotonic_ns()
        waited = runqueue.run_queue_wait_ms()
        comm = self._collectives(self._start, end)
        times = {p: 0.0 for p in PHASES}
        for name, lo, hi in self._spans:
            inside = _union_ms(comm, lo, hi) if name != "collective" else 0.0
            times[name] += (hi - lo) / 1e6 - inside
        times["collective"] += _union_ms(comm, self._start, end)
        row = {"step": float(self._step), **times, "step_ms": (end - self._start) / 1e6,
               "waited_ms": None if waited is None or self._waited is None else round(waited - self._waited, 3)}
        self.history.append(row)
        self._steps += 1
        self._window.append(row)
        if self._metrics is not None:
            for p in PHASES:
                self._metrics[0].record(times[p], step_phase=p)
        step, self._step = self._step, None
        if len(self._window) < self.every:
            return None
        mine = [_median([w[p] for w in self._window]) for p in PHASES] + [_median([w["step_ms"] for w in self._window])]
        first = int(self._window[0]["step"])
        self._window = []
        table = self._exchange(mine)
        self.last_table = table
        self._check_wait_measured(table)
        verdict = self.detector.observe(table, step=step, first_step=first) if self._steps > self.warmup else None
        if self._metrics is not None:
            me = _own_rank()
            active = self.detector.active
            for p, v in zip(PHASES, mine):
                self._metrics[1].set(v, step_phase=p)
            for p in OWN_PHASES:
                self._metrics[2].observe(1.0 if active is not None and (active.rank, active.phase) == (me, p) else 0.0,
                                         step_phase=p)
            if verdict is not None and verdict.rank == me:
                self._metrics[3].add(1, step_phase=verdict.phase)
        return verdict

    def _check_wait_measured(self, table: list[list[float]]) -> None:
        if not self._warned and len(table) > 1 and all(row[2] == 0 for row in table):
            self._warned = True
            warnings.warn("StragglerMonitor: no collective time measured on any rank: give it the installed "
                          "FlightRecorder or time collectives with "
                          "phase('collective'); without it no straggler can be named", RuntimeWarning, stacklevel=3)


def _own_rank() -> int:
    import torch.distributed as dist

    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def _all_gather(row: list[float]) -> list[list[float]]:
    """Every rank's row on every rank: one ``all_gather`` of ``len(row)`` float64 values on the default group."""
    import torch
    import torch.distributed as dist

    mine = torch.tensor(row, dtype=torch.float64)
    out = [torch.empty_like(mine) for _ in range(dist.get_world_size())]
    dist.all_gather(out, mine)
    return [t.tolist() for t in out]
