"""One-line pictures of ``promql.json`` for ``faultlib run``'s summary: a unicode sparkline per query
and phase, with the fault windows side by side (``before|during|after``) and the min/max.

Each character is one slice of a window: the largest value of every series in that slice (several
series, ``sum by (action)`` ..., are drawn as their maximum, so a spike in any of them shows). The
bars share one scale per query across both phases, so the control and the faulted run compare at a
glance: ``▁`` is the query's smallest finite value, ``█`` its largest; ``·`` is a slice without a
value (no sample yet, or NaN); ``+Inf``/``-Inf`` are drawn as ``█``/``▁``. A phase without fault
windows (a case without step spans) draws its ``run`` window. Plain text: the caller prints it as
:class:`rich.text.Text`.
"""

from __future__ import annotations

import math

from faultlib.evidence.promql import PromqlResults, QueryResult
from faultlib.observability.windows import FAULT_WINDOWS, RUN

BARS = "▁▂▃▄▅▆▇█"
NO_VALUE = "·"
#: characters per window at most (a window with fewer evaluations gets one per evaluation)
WIDTH = 12
ERROR_MAX = 120


def _timeline(result: QueryResult) -> list[float]:
    """The maximum over the series at each evaluation time (NaN where no series has a number)."""
    at: dict[int, float] = {}  # by millisecond
    for series in result.series:
        for t, v in series.values:
            ms = round(t * 1000)
            if not math.isnan(v):
                at[ms] = max(at.get(ms, -math.inf), v) if not math.isnan(at.get(ms, -math.inf)) else v
            else:
                at.setdefault(ms, math.nan)
    if not at:
        return []
    start, end, step = round(result.start * 1000), round(result.end * 1000), max(1, round(result.step * 1000))
    return [at.get(ms, math.nan) for ms in range(start, end + 1, step)]


def _slices(values: list[float], width: int) -> list[float]:
    if len(values) <= width:
        return values
    out = []
    for i in range(width):
        part = [v for v in values[i * len(values) // width:(i + 1) * len(values) // width] if not math.isnan(v)]
        out.append(max(part) if part else math.nan)
    return out


def sparkline(values: list[float], low: float, high: float, width: int = WIDTH) -> str:
    """``values`` as at most ``width`` bar characters scaled from ``low`` (``▁``) to ``high`` (``█``)."""
    chars = []
    for v in _slices(values, width):
        if math.isnan(v):
            chars.append(NO_VALUE)
        elif v == math.inf or (high > low and v >= high):
            chars.append(BARS[-1])
        elif v == -math.inf or high <= low or v <= low:
            chars.append(BARS[0])
        else:
            chars.append(BARS[min(len(BARS) - 1, int((v - low) / (high - low) * len(BARS)))])
    return "".join(chars) or NO_VALUE


def _number(value: float) -> str:
    return f"{value:.4g}"


def promql_lines(results: PromqlResults) -> list[str]:
    """The summary lines: a header, then per query one line per phase (or the query's error)."""
    lines = [f"promql (Prometheus {results.prometheus}; windows {'|'.join(FAULT_WINDOWS)}):"]
    width = max((len(i) for i in results.ids()), default=0)
    for query_id in results.ids():
        entries = [q for q in results.queries if q.id == query_id]
        finite = [v for q in entries for s in q.series for _, v in s.values if math.isfinite(v)]
        low, high = (min(finite), max(finite)) if finite else (0.0, 0.0)
        label = query_id
        for phase in dict.fromkeys(q.phase for q in entries):
            mine = [q for q in entries if q.phase == phase]
            windows = [q for w in FAULT_WINDOWS for q in mine if q.window == w] or [q for q in mine if q.window == RUN]
            errors = [q.error for q in windows if q.error]
            if errors:
                text = errors[0] if len(errors[0]) <= ERROR_MAX else errors[0][:ERROR_MAX] + "..."
                lines.append(f"  {label:<{width}}  {phase:<7} error: {text}")
            else:
                picture = "|".join(sparkline(_timeline(q), low, high) for q in windows)
                numbers = [v for q in windows for s in q.series for _, v in s.values if not math.isnan(v)]
                span = f"min {_number(min(numbers))} max {_number(max(numbers))}" if numbers else "no value"
                lines.append(f"  {label:<{width}}  {phase:<7} {picture}  {span}")
            label = ""
    return lines
