"""The time windows of a run's phases, read from its spans: where a case's PromQL is evaluated.

A window is a named time range of one phase, in seconds since the epoch:

- ``before``, ``during``, ``after`` (the fault windows). In the faulted phase each is
  ``[earliest start, latest end]`` of the step spans (spans with an integer ``faultlib.step``) whose
  ``faultlib.fault.window`` attribute names it. The control phase has no fault (its step spans say
  ``none``), so its windows are defined by the *same step indices* as the faulted phase's: the
  control's ``during`` covers the control steps whose index was faulted in the other phase; the
  control snapshots its metrics at those boundary steps too (``FAULTLIB_MIRROR_FAULTS``), so each of
  its windows holds a sample. A window
  with no step (no ``after`` when the fault lasts to the end) is absent.
- ``run``: the whole phase, ``[earliest start, latest end]`` of its root spans (``faultlib.repro``;
  several when the runner restarted the phase). Every phase with a root span has one; a case without
  step spans has only this one.

Boundaries: evidence metrics are snapshots (``metrics.om``: every second, at every change of the
fault window, and as the repro closes; millisecond timestamps). The snapshot at a window change is
taken as the next window's first step begins, before its span opens, so:

- a window starts at its first span: the latest sample there is the boundary snapshot, the state
  at the end of the previous window (the evaluation never reaches further back);
- a window ends where the next window's first span starts (when that follows within
  :data:`MAX_GAP_S`), plus :data:`MARGIN_S`, so the boundary snapshot that closes it falls inside;
- the last fault window of a phase (and ``run``) ends :data:`RUN_TAIL_S` after the phase's root
  span, so the snapshot taken as the repro closes falls inside: "after" lasts until the phase ends.

The margin is shorter than one step of the catalog's workloads (about 1 ms), so a window does not
reach a snapshot taken after the next window's first step.

Spans are read with the hardened evidence reader (:func:`faultlib.evidence.reader.iter_spans`):
unreadable lines are skipped and reported in ``problems``; nothing here raises on bad evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from faultlib.evidence import layout
from faultlib.evidence.reader import Span, iter_spans
from faultlib.evidence.problems import EvidenceProblem

#: added after the end of every window, so the snapshot that closes it falls inside (timestamps have
#: millisecond resolution)
MARGIN_S = 0.001
#: a window's end moves to the next window's first span when the gap between them is at most this long
MAX_GAP_S = 1.0
#: ``run`` and the last fault window end this long after the root span: the last snapshot is taken as
#: the repro's context closes, after the root span ended
RUN_TAIL_S = 0.5
#: the fault windows, in time order
FAULT_WINDOWS = ("before", "during", "after")
RUN = "run"
ROOT_SPAN = "faultlib.repro"


@dataclass(frozen=True)
class Window:
    """One time window of one phase.

    Attributes:
        phase: ``control`` or ``faulted``.
        name: ``before``, ``during``, ``after`` or ``run``.
        start, end: seconds since the epoch, margins included (``end > start``).
        steps: ``(first, last)`` step index of the window (None for ``run``).
    """

    phase: str
    name: str
    start: float
    end: float
    steps: tuple[int, int] | None = None

    @property
    def duration_s(self) -> float:
        return self.end - self.start


def _step(span: Span) -> int | None:
    step = span.attributes.get("faultlib.step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _range(spans: list[Span]) -> tuple[float, float]:
    return min(s.start_ns for s in spans) / 1e9, max(s.end_ns for s in spans) / 1e9


def _fault_windows(phase: str, steps: list[Span], indices: dict[str, set[int]],
                   phase_end: float | None) -> list[Window]:
    """The fault windows of one phase: its step spans grouped by the faulted phase's step indices; the
    last one lasts until ``phase_end`` (the end of the run window), when known."""
    ranges = []
    for name in FAULT_WINDOWS:
        spans = [s for s in steps if _step(s) in indices.get(name, ())]
        if spans:
            members = sorted({_step(s) for s in spans})
            ranges.append((name, *_range(spans), (members[0], members[-1])))
    ranges.sort(key=lambda r: r[1])
    out = []
    for i, (name, start, end, members) in enumerate(ranges):
        following = ranges[i + 1][1] if i + 1 < len(ranges) else None
        if following is not None and end <= following <= end + MAX_GAP_S:
            end = following  # the snapshot that closes this window is taken in the gap
        end += MARGIN_S
        if following is None and phase_end is not None:
            end = max(end, phase_end)  # "after" lasts until the phase ends: its last snapshot is at exit
        out.append(Window(phase, name, start, end, members))
    return out


def phase_windows(run_dir: Path, problems: list[EvidenceProblem] | None = None, *,
                  max_file_bytes: int | None = None) -> list[Window]:
    """The windows of every phase of a run, from its ``traces.jsonl`` (see the module docstring).

    Args:
        run_dir: the run directory.
        problems: receives the trace lines that could not be read (they are skipped).
        max_file_bytes: a larger ``traces.jsonl`` is not read (one problem); default the reader's.

    Returns:
        Windows ordered by phase (``control``, ``faulted``), then ``before``, ``during``, ``after``,
        ``run``. Empty when no span could be read.
    """
    kwargs = {} if max_file_bytes is None else {"max_file_bytes": max_file_bytes}
    steps: dict[str, list[Span]] = {p: [] for p in layout.PHASES}
    roots: dict[str, list[Span]] = {p: [] for p in layout.PHASES}
    for phase, span in iter_spans(Path(run_dir) / layout.TRACES, problems, **kwargs):
        if phase not in steps or span.end_ns < span.start_ns:
            continue
        if span.name == ROOT_SPAN:
            roots[phase].append(span)
        elif _step(span) is not None:
            steps[phase].append(span)
    indices: dict[str, set[int]] = {}
    for span in steps["faulted"]:
        window = span.attributes.get("faultlib.fault.window")
        if window in FAULT_WINDOWS:
            indices.setdefault(window, set()).add(_step(span))
    out: list[Window] = []
    for phase in layout.PHASES:
        run = None
        if roots[phase]:
            start, end = _range(roots[phase])
            run = Window(phase, RUN, start, end + RUN_TAIL_S)
        out += _fault_windows(phase, steps[phase], indices, run.end if run else None)
        if run:
            out.append(run)
    return out
