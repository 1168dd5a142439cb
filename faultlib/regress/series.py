"""The evidence of one run, digested for the HTML report: the case's key series over steps or
requests (control vs faulted, with the fault window), its metrics per fault window, its findings
and the repro's summary values per phase.

Which series are key is decided from the evidence alone, so a case added later needs nothing:

- every span that carries ``faultlib.step`` (what ``ctx.step(...)`` records: ``train.step``,
  ``serve.request``, ``serve.batch``, ...) is a point on the x axis; each numeric attribute of those
  spans (``loss``, ``loss_scale``, ``latency_ms``, ``psi`` ...) and the span's duration is a candidate;
- candidates score by name (loss scale, gradient norm, latency, drift score, memory, accuracy, loss
  ... first; a name that occurs in the case's ``observability.metrics`` gains), and most by how far
  the faulted run departs from the control; constant series, and series the fault did not change
  whose name says nothing, and categories (``*_label``, ``*_id``) are dropped; the best :data:`MAX_CHARTS` are drawn;
- latencies (``*_ms``, ``latency``, span durations) are drawn as a rolling P99 over
  :data:`P99_WINDOW` points;
- the fault window is the range of steps whose span says ``faultlib.fault.window == "during"``;
  fault events (``faultlib.fault`` spans with a ``step``) are drawn as markers.

Metric points carry ``window`` (before/during/after/none); they are tabled per window from each
series' latest snapshot (``PhaseEvidence.metrics``), not drawn over time.

When the run was made with ``--prometheus``, each of the case's PromQL queries is also drawn from
``promql.json`` (:func:`promql_charts`): its series over seconds since each phase began, through the
before, during and after windows, the faulted run's ``during`` window shaded, the control dashed.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from faultlib.cases import Case
from faultlib.errors import PromqlError, PromqlNotRecorded
from faultlib.evidence.reader import PhaseEvidence, Span, read_run
from faultlib.evidence.promql import PromqlResults
from faultlib.evidence.promql import load as load_promql

MAX_CHARTS = 4
MAX_POINTS = 600          # per phase and chart; longer series are thinned evenly
P99_WINDOW = 10
MAX_METRIC_ROWS = 40
MAX_FINDINGS = 12         # listed per phase (all are counted)
WINDOWS = ("before", "during", "after", "none")
#: attribute names that hold a category, not a quantity (``expected_label``, ``batch_id``): never drawn
CATEGORICAL = re.compile(r"(^|[._])(label|id|class|seed|index|code)$")
#: name fragments of the series that usually tell a fault's story, with their weight
KEYWORDS = (("loss_scale", 6.0), ("grad", 5.0), ("norm", 4.0), ("p99", 5.0), ("latency", 5.0), ("psi", 5.0),
            ("drift", 5.0), ("mmd", 5.0), ("kl", 3.0), ("memory", 5.0), ("fragment", 5.0), ("accuracy", 4.0),
            ("loss", 4.0), ("lag", 4.0), ("blocked", 4.0), ("throughput", 4.0), ("mismatch", 3.0),
            ("_ms", 2.0), ("error", 2.0), ("ratio", 2.0), ("step", -1.0))


@dataclass(frozen=True)
class Chart:
    """One series drawn over steps: both phases, the fault window and fault events.

    Attributes:
        title: what is drawn (``loss_scale of train.step``).
        x_label: the step unit (``step``, ``request``, ``batch``: the span name's last part).
        y_label: the attribute (and ``rolling P99`` when smoothed).
        control, faulted: polylines of ``[x, y]``: one per attempt (a restarted phase has several), broken
            where steps have no value.
        nonfinite: x positions of NaN/inf values per phase (drawn as marks at the top).
        window: first and last step of the fault window in the faulted run, or None.
        markers: ``[x, label]`` of fault events (a process kill at step 130).
        log_y: the values span more than three decades and are positive: a log axis.
        note: how the series was derived, for the caption.
        x_continuous: x is a time in seconds, not a step index: the window ends at its end, not one step later.
    """

    title: str
    x_label: str
    y_label: str
    control: list[list[list[float]]]
    faulted: list[list[list[float]]]
    nonfinite: dict[str, list[float]] = field(default_factory=dict)
    window: list[float] | None = None
    markers: list[list[Any]] = field(default_factory=list)
    log_y: bool = False
    note: str = ""
    x_continuous: bool = False


@dataclass(frozen=True)
class MetricRow:
    """One metric series (its labels without ``window``) across the phases and fault windows.

    ``values`` keys: ``control`` and ``before``/``during``/``after``/``none`` of the faulted run.
    Counters are summed, gauges take their latest value, histograms give their mean (sum/count).
    """

    metric: str
    labels: str
    kind: str
    values: dict[str, float | None]


@dataclass(frozen=True)
class FindingLine:
    phase: str
    detector: str
    severity: str
    kind: str
    message: str
    step: Any = None


@dataclass
class ReportData:
    """Everything the HTML report shows of a run's evidence (JSON-ready through :meth:`to_json`)."""

    charts: list[Chart] = field(default_factory=list)
    metrics: list[MetricRow] = field(default_factory=list)
    findings: list[FindingLine] = field(default_factory=list)
    finding_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    summary: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: int = 0
    notes: list[str] = field(default_factory=list)
    promql: list[Chart] = field(default_factory=list)
    promql_note: str = ""
    promql_rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return _finite(asdict(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReportData:
        """Rebuild from :meth:`to_json`'s output (raises TypeError/KeyError on another shape)."""
        return cls(charts=[Chart(**c) for c in data.get("charts", [])],
                   metrics=[MetricRow(**m) for m in data.get("metrics", [])],
                   findings=[FindingLine(**f) for f in data.get("findings", [])],
                   finding_counts=dict(data.get("finding_counts", {})), summary=dict(data.get("summary", {})),
                   problems=int(data.get("problems", 0)), notes=list(data.get("notes", [])),
                   promql=[Chart(**c) for c in data.get("promql", [])], promql_note=str(data.get("promql_note", "")),
                   promql_rows=[dict(r) for r in data.get("promql_rows", [])])


def _finite(value: Any) -> Any:
    """NaN and infinities become None, so the digest is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _step_spans(phase: PhaseEvidence) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for span in phase.spans:
        if isinstance(span.attributes.get("faultlib.step"), int) and not isinstance(span.attributes["faultlib.step"], bool):
            out.setdefault(span.name, []).append(span)
    for spans in out.values():
        spans.sort(key=lambda s: s.start_ns)
    return out


def _candidates(spans: list[Span]) -> dict[str, list[tuple[int, int, float]]]:
    """``{series: [(attempt, step, value)]}`` for each numeric attribute and the duration."""
    out: dict[str, list[tuple[int, int, float]]] = {}
    for span in spans:
        step = span.attributes["faultlib.step"]
        attempt = span.attributes.get("faultlib.attempt", 1)
        attempt = attempt if isinstance(attempt, int) else 1
        for key, value in span.attributes.items():
            number = _number(value)
            if number is None or key.startswith(("faultlib.", "http.")):
                continue
            out.setdefault(key, []).append((attempt, step, number))
        out.setdefault("duration_ms", []).append((attempt, step, span.duration_ms))
    return out


def _latency_like(name: str) -> bool:
    return name == "duration_ms" or ("latency" in name or name.endswith("_ms")) and "p99" not in name \
        and "p50" not in name


def _rolling_p99(points: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    out, recent = [], []
    for attempt, step, value in points:
        if math.isfinite(value):
            recent = (recent + [value])[-P99_WINDOW:]
        if recent:
            ordered = sorted(recent)
            out.append((attempt, step, ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]))
    return out


def _divergence(control: list[tuple[int, int, float]], faulted: list[tuple[int, int, float]]) -> float:
    """Mean |faulted - control| at the steps both have, over the range of both (0..1)."""
    values = [v for _, _, v in control + faulted if math.isfinite(v)]
    if not values:
        return 0.0
    span = max(values) - min(values)
    c = {s: v for _, s, v in control}
    pairs = [(c[s], v) for _, s, v in faulted if s in c]
    bad = sum(1 for a, b in pairs if math.isfinite(a) != math.isfinite(b))
    diffs = [abs(a - b) for a, b in pairs if math.isfinite(a) and math.isfinite(b)]
    if not pairs:
        return 0.5  # no common steps (no control run): the series still says something
    spread = (sum(diffs) / len(diffs) / span) if diffs and span > 0 else 0.0
    return min(1.0, spread + bad / len(pairs))


def _segments(points: list[tuple[int, int, float]]) -> tuple[list[list[list[float]]], list[float]]:
    by_attempt: dict[int, list[list[float]]] = {}
    nonfinite = []
    for attempt, step, value in points:
        if math.isfinite(value):
            by_attempt.setdefault(attempt, []).append([float(step), value])
        else:
            nonfinite.append(float(step))
    segments = []
    for attempt in sorted(by_attempt):
        line = by_attempt[attempt]
        gaps = sorted(b[0] - a[0] for a, b in zip(line, line[1:]) if b[0] > a[0])
        usual = gaps[len(gaps) // 2] if gaps else 1.0
        start = 0
        for i in range(1, len(line) + 1):  # a step with no value (a request that timed out) breaks the line
            if i == len(line) or line[i][0] - line[i - 1][0] >= 2 * usual:
                segments.append(_thin(line[start:i]))
                start = i
    return segments, nonfinite


def _thin(points: list[list[float]]) -> list[list[float]]:
    """At most :data:`MAX_POINTS` of ``points``, evenly strided (the first kept)."""
    stride = max(1, math.ceil(len(points) / MAX_POINTS))
    return points[::stride] if stride > 1 else points


def _metric_words(case: Case) -> set[str]:
    names = ((case.raw.get("observability") or {}).get("metrics")) or []
    words = set()
    for name in names:
        if isinstance(name, str):
            stem = name.removeprefix("faultlib_").removesuffix("_total")
            words.add(stem)
            words.update(part for part in stem.split("_") if len(part) > 3)
    return words


def _score(name: str, control: list, faulted: list, words: set[str]) -> tuple[float, float]:
    """(score from the name, how far the faulted run departs from the control: 0..1)."""
    lowered = name.lower()
    score = sum(weight for key, weight in KEYWORDS if key in lowered)
    if lowered in words or any(word in lowered for word in words):
        score += 3.0
    if name == "duration_ms":
        score -= 2.0  # every step span has one: it must earn its place by departing from the control
    return score, _divergence(control, faulted)


def _charts(case: Case, control: PhaseEvidence, faulted: PhaseEvidence) -> list[Chart]:
    words = _metric_words(case)
    c_spans, f_spans = _step_spans(control), _step_spans(faulted)
    scored: list[tuple[float, Chart]] = []
    for span_name in sorted(set(c_spans) | set(f_spans)):
        c_series, f_series = _candidates(c_spans.get(span_name, [])), _candidates(f_spans.get(span_name, []))
        window_steps = [s.attributes["faultlib.step"] for s in f_spans.get(span_name, [])
                        if s.attributes.get("faultlib.fault.window") == "during"]
        unit = span_name.rsplit(".", 1)[-1] or "step"
        for name in sorted(set(c_series) | set(f_series)):
            c_points, f_points = c_series.get(name, []), f_series.get(name, [])
            finite = {v for _, _, v in c_points + f_points if math.isfinite(v)}
            if len(c_points) + len(f_points) < 3 or len(finite) < 2 or CATEGORICAL.search(name):
                continue  # constant or a single point: nothing to see over time
            note = ""
            if _latency_like(name):
                c_points, f_points = _rolling_p99(c_points), _rolling_p99(f_points)
                note = f"rolling P99 over the last {P99_WINDOW} {span_name} spans"
                if len({v for _, _, v in c_points + f_points}) < 2:
                    continue  # flat once smoothed
            c_lines, c_bad = _segments(c_points)
            f_lines, f_bad = _segments(f_points)
            positive = [v for line in c_lines + f_lines for _, v in line]
            log_y = bool(positive) and min(positive) > 0 and max(positive) / min(positive) > 1e3
            label = f"{'span duration (ms)' if name == 'duration_ms' else name}{' (rolling P99)' if note else ''}"
            chart = Chart(title=f"{label} per {unit} ({span_name})", x_label=unit, y_label=label,
                          control=c_lines, faulted=f_lines, nonfinite={"control": c_bad, "faulted": f_bad},
                          window=[float(min(window_steps)), float(max(window_steps))] if window_steps else None,
                          log_y=log_y, note=note)
            named, departs = _score(name, c_points, f_points, words)
            if named <= 0 and departs == 0:
                continue  # neither a known kind of series nor changed by the fault: nothing to see
            scored.append((named + 8.0 * departs, chart))
    scored.sort(key=lambda item: -item[0])
    charts = [chart for _, chart in scored[:MAX_CHARTS]]
    markers = [[float(s.attributes["step"]), str(s.attributes.get("faultlib.injector", "fault"))]
               for s in faulted.spans_named("faultlib.fault") if _number(s.attributes.get("step")) is not None]
    return [Chart(**{**asdict(c), "markers": markers}) for c in charts]


def _metric_rows(case: Case, control: PhaseEvidence, faulted: PhaseEvidence) -> list[MetricRow]:
    declared = [m for m in ((case.raw.get("observability") or {}).get("metrics") or []) if isinstance(m, str)]
    present = sorted({p.name for p in control.metrics + faulted.metrics})
    names = [m for m in declared if m in present] or present[:12]
    groups: dict[tuple[str, str], dict[str, list]] = {}
    kinds: dict[str, str] = {}
    for phase in (control, faulted):
        for point in phase.metrics:
            if point.name not in names:
                continue
            labels = ", ".join(f"{k}={v}" for k, v in sorted(point.attributes.items()) if k != "window")
            column = "control" if phase is control else str(point.attributes.get("window", "none"))
            column = column if column in ("control", *WINDOWS) else "none"
            groups.setdefault((point.name, labels), {}).setdefault(column, []).append(point)
            kinds[point.name] = point.kind
    rows = []
    for (metric, labels), columns in sorted(groups.items(), key=lambda item: (names.index(item[0][0]), item[0][1])):
        values: dict[str, float | None] = {}
        for column, points in columns.items():
            if kinds[metric] == "sum":
                values[column] = sum(p.value for p in points)
            elif kinds[metric] == "histogram":
                count = sum(p.extra.get("count", 0) for p in points)
                values[column] = sum(p.value for p in points) / count if count else None
            else:
                values[column] = max(points, key=lambda p: p.time_ns).value
        rows.append(MetricRow(metric, labels, kinds[metric], values))
    return rows[:MAX_METRIC_ROWS]


def promql_charts(results: PromqlResults) -> list[Chart]:
    """One chart per PromQL query of ``promql.json``: each phase's series over seconds since the phase's
    first window began, the faulted ``during`` window shaded; series broken at NaN, infinities marked.

    Args:
        results: :func:`faultlib.evidence.promql.load` of the run.

    Returns:
        Charts in the case's query order; a query that failed in Prometheus is drawn empty with its
        error in the note.
    """
    charts = []
    for query_id in results.ids():
        entries = [q for q in results.queries if q.id == query_id]
        lines: dict[str, list[list[list[float]]]] = {"control": [], "faulted": []}
        nonfinite: dict[str, list[float]] = {}
        window, errors = None, []
        for phase in lines:
            mine = [q for q in entries if q.phase == phase]
            fault_windows = [q for q in mine if q.window in WINDOWS] or [q for q in mine if q.window == "run"]
            if not fault_windows:
                continue
            t0 = min(q.start for q in fault_windows)
            errors += [q.error for q in fault_windows if q.error]
            by_series: dict[tuple, dict[float, float]] = {}
            for q in fault_windows:
                for series in q.series:
                    key = tuple(sorted(series.labels.items()))
                    by_series.setdefault(key, {}).update({t: v for t, v in series.values})
                if phase == "faulted" and q.window == "during":
                    window = [round(q.start - t0, 3), round(q.end - t0, 3)]
            for values in by_series.values():
                segment: list[list[float]] = []
                for t, v in sorted(values.items()):
                    if math.isfinite(v):
                        segment.append([round(t - t0, 3), v])
                        continue
                    if not math.isnan(v):
                        nonfinite.setdefault(phase, []).append(round(t - t0, 3))
                    if segment:
                        lines[phase].append(_thin(segment))
                    segment = []
                if segment:
                    lines[phase].append(_thin(segment))
        series_count = max(len(lines["control"]), len(lines["faulted"]))
        note = (f"Prometheus error: {errors[0][:200]}" if errors
                else f"{series_count} series per phase" if series_count > 1 else "")
        ys = [y for segs in lines.values() for seg in segs for _, y in seg]
        log_y = bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 1e3
        charts.append(Chart(title=f"{query_id}: {entries[0].query}", x_label="s since the phase began",
                            y_label=query_id, control=lines["control"], faulted=lines["faulted"],
                            nonfinite=nonfinite, window=window, log_y=log_y, note=note, x_continuous=True))
    return charts


def promql_rows(results: PromqlResults) -> list[dict[str, Any]]:
    """One row per PromQL query of ``promql.json``: the mean of its finite values (every series, every
    evaluation step) in the control run and in the faulted run's before, during and after windows.

    Returns:
        ``[{"id", "query", "control", "before", "during", "after", "error"}]`` in the case's query order;
        a value is None where the window has no finite value (or the phase did not run).
    """
    rows = []
    for query_id in results.ids():
        entries = [q for q in results.queries if q.id == query_id]
        sums: dict[str, list[float]] = {"control": [], "before": [], "during": [], "after": []}
        control_whole = any(q.phase == "control" and q.window == "run" for q in entries)
        for q in entries:
            if q.phase == "control":  # the whole control run: its "run" window, else every window it has
                column = "control" if q.window == "run" or not control_whole else ""
            else:
                column = q.window
            if column in sums:
                sums[column] += [v for series in q.series for _, v in series.values if math.isfinite(v)]
        errors = [q.error for q in entries if q.error]
        rows.append({"id": query_id, "query": entries[0].query, "error": errors[0][:200] if errors else "",
                     **{k: (sum(v) / len(v) if v else None) for k, v in sums.items()}})
    return rows


def report_data(case: Case, run_dir: Path) -> ReportData:
    """Digest the evidence of one finished run for the HTML report.

    Args:
        case: the case that ran (for ``observability.metrics``).
        run_dir: the run directory (``run.json``, ``traces.jsonl``, ``metrics.jsonl``, ``findings.jsonl``).

    Returns:
        The charts, metric rows, findings and summaries; unreadable evidence is skipped and counted
        in ``problems`` (:func:`faultlib.evidence.reader.read_run` never raises on bad evidence).
    """
    evidence = read_run(run_dir)
    data = ReportData(problems=len(evidence.problems))
    data.charts = _charts(case, evidence.control, evidence.faulted)
    data.metrics = _metric_rows(case, evidence.control, evidence.faulted)
    for phase in (evidence.control, evidence.faulted):
        counts: dict[str, int] = {}
        for finding in phase.findings:
            counts[finding.severity.value] = counts.get(finding.severity.value, 0) + 1
        data.finding_counts[phase.name] = counts
        for finding in phase.findings[:MAX_FINDINGS]:
            data.findings.append(FindingLine(phase.name, finding.detector, finding.severity.value,
                                             getattr(finding, "kind", "") or "", finding.message[:500],
                                             finding.location.get("step")))
        data.summary[phase.name] = {k: v for k, v in phase.summary.items()
                                    if isinstance(v, (str, int, float, bool)) or v is None}
    if not data.charts:
        data.notes.append("no step series: the repro recorded no numeric attributes on spans with faultlib.step")
    try:
        results = load_promql(run_dir)
        data.promql = promql_charts(results)
        data.promql_rows = promql_rows(results)
    except PromqlNotRecorded:
        data.promql_note = "no PromQL results: the run was made without --prometheus"
    except PromqlError as exc:
        data.promql_note = str(exc)
    return data
