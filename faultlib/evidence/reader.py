"""Reading a run's evidence back: typed spans, metric points, logs and findings per phase.

Used by the assertion-suite fixture (``evidence``), the runner and ``faultlib archive``.

Evidence is written by the repro, so it is read defensively: every JSON Lines file goes through
:func:`faultlib.readers.iter_json_lines` (bounded, finite numbers, no duplicate keys), each line is
decoded on its own, and a line that is not valid JSON or not the expected OTLP/JSON or finding
shape is skipped and reported as an :class:`EvidenceProblem` (``RunEvidence.problems``; the
``problems`` argument of the ``iter_*`` functions) instead of raising. A file that cannot be
opened safely (a symlink, a FIFO, a directory, larger than the limit) is one problem. A torn last
line (no newline at the end: a process killed mid-write) is a ``warning``; every other problem is
an ``error``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from faultlib.errors import InputError
from faultlib.evidence import layout, otlp
from faultlib.evidence.problems import EvidenceProblem, json_lines
from faultlib.findings import Finding
from faultlib.readers import load_json, read_bytes
from faultlib.readers.files import Limits
from faultlib.readers.jsondoc import LINES_FILE_MAX_BYTES

_DECODE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)


@dataclass(frozen=True)
class Span:
    """One finished span. Times in nanoseconds since the epoch; ``status`` is the OTLP code
    (0 unset, 1 ok, 2 error)."""

    name: str
    attributes: dict[str, Any]
    start_ns: int
    end_ns: int
    status: int
    events: tuple[tuple[str, dict[str, Any]], ...]
    trace_id: str
    span_id: str
    parent_span_id: str

    @property
    def duration_ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


@dataclass(frozen=True)
class MetricPoint:
    """One data point of one snapshot; ``kind`` is ``sum``, ``gauge`` or ``histogram``. For a histogram,
    ``value`` is the sum and ``extra`` holds count, bucket counts and bounds.

    Sums and histograms are cumulative: ``value`` is the total from ``start_ns`` (when the series
    began in its process) to ``time_ns`` (when the snapshot was taken), both in nanoseconds since
    the epoch (``start_ns`` is 0 for gauges). Successive snapshots repeat a series with its running
    total: never add the points of one series up; its value is its latest point (:func:`latest_points`).
    ``attempt`` is the phase attempt of the process that wrote it (resource ``faultlib.attempt``; 1
    when absent).
    """

    name: str
    kind: str
    value: float
    attributes: dict[str, Any]
    time_ns: int
    monotonic: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    start_ns: int = 0
    attempt: int = 1


def series_key(point: MetricPoint) -> tuple:
    """What identifies the series of ``point`` within a phase: name, kind and attributes
    (values compared by ``repr``, so list values work and ``1`` is not ``"1"``)."""
    return point.name, point.kind, tuple(sorted((k, repr(v)) for k, v in point.attributes.items()))


def latest_points(points: Iterable[MetricPoint]) -> list[MetricPoint]:
    """The value of every series among ``points`` (one phase's), counted once: its latest point
    (largest ``time_ns``; the later one on a tie), in the order the series first appear.

    Only the phase's last attempt counts: a phase the runner restarted (``repro.restarts``) ends
    with the process that finished it, whose series hold the phase's values (a resumed run starts
    its counters again); the killed attempts' snapshots stay in ``metric_history`` and ``metrics.om``.
    """
    points = list(points)
    last = max((p.attempt for p in points), default=1)
    latest: dict[tuple, MetricPoint] = {}
    for point in points:
        if point.attempt != last:
            continue
        key = series_key(point)
        if key not in latest or point.time_ns >= latest[key].time_ns:
            latest[key] = point
    return list(latest.values())


@dataclass
class PhaseEvidence:
    """Evidence of one phase (``control`` or ``faulted``).

    Attributes:
        metrics: the latest point of every metric series, of the phase's last attempt
            (:func:`latest_points`): summing these counts each series once.
        metric_history: every point of every snapshot, sorted by ``time_ns`` (cumulative values:
            see :class:`MetricPoint`); :meth:`metric_series` groups it per series.
        exit_code: the repro's exit code (``None`` if it was killed or never ran).
        status: ``ok``, ``crashed``, ``timeout`` or ``skipped`` (from the runner).
        attempts: one ``{"attempt", "exit_code", "signal", "duration_s"}`` per process the runner
            started for the phase (several when ``repro.restarts`` restarted it).
    """

    name: str
    exit_code: int | None = None
    status: str = "skipped"
    spans: list[Span] = field(default_factory=list)
    metrics: list[MetricPoint] = field(default_factory=list)
    metric_history: list[MetricPoint] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)

    def missing_observability(self, observability: dict[str, Any]) -> list[str]:
        """What a case's ``observability`` block declares that this phase's evidence lacks: metric
        names (``metrics``), span names (``spans``), and PromQL queries (``promql``) that use none of
        the metrics the phase emitted. An empty list means the dashboards can find the fault."""
        names = {p.name for p in self.metrics}
        spans = {s.name for s in self.spans}
        missing = [f"metric {m}" for m in observability.get("metrics", []) if m not in names]
        missing += [f"span {s}" for s in observability.get("spans", []) if s not in spans]
        missing += [f"promql {q.get('id')}: uses no emitted metric" for q in observability.get("promql", [])
                    if not any(m in q.get("query", "") for m in names)]
        return missing

    def spans_named(self, name: str) -> list[Span]:
        """Spans called ``name`` in start order."""
        return sorted((s for s in self.spans if s.name == name), key=lambda s: s.start_ns)

    def steps(self, name: str = "train.step") -> list[Span]:
        """Step spans sorted by their ``faultlib.step`` attribute."""
        return sorted((s for s in self.spans if s.name == name),
                      key=lambda s: s.attributes.get("faultlib.step", -1))

    @property
    def summary(self) -> dict[str, Any]:
        """The values the repro passed to ``ctx.summary(...)`` (attributes ``summary.*`` of the root span)."""
        out: dict[str, Any] = {}
        for span in self.spans_named("faultlib.repro"):
            out.update({k[len("summary."):]: v for k, v in span.attributes.items() if k.startswith("summary.")})
        return out

    def metric(self, name: str, **labels: Any) -> float:
        """Sum of the latest value of every series of ``name`` whose attributes match ``labels``.

        Raises:
            KeyError: no series matches (the message lists the metric names present).
        """
        latest = latest_points(p for p in self.metrics if _matches(p, name, labels))
        if not latest:
            names = sorted({p.name for p in self.metrics})
            raise KeyError(f"no metric {name!r} with {labels} in phase {self.name}; metrics: {names}")
        return sum(p.value for p in latest)

    def metric_series(self, name: str, **labels: Any) -> dict[tuple[tuple[str, Any], ...], list[tuple[float, float]]]:
        """Every series of ``name`` whose attributes match ``labels``, over time.

        Returns:
            ``{sorted attribute items: [(time in seconds since the epoch, value), ...]}``, each list
            in time order, one entry per snapshot (cumulative values for sums and histograms, whose
            value is their sum); empty when nothing matches.
        """
        out: dict[tuple[tuple[str, Any], ...], list[tuple[float, float]]] = {}
        for point in self.metric_history:
            if _matches(point, name, labels):
                key = tuple(sorted((k, _frozen(v)) for k, v in point.attributes.items()))
                out.setdefault(key, []).append((point.time_ns / 1e9, point.value))
        return out


def _frozen(value: Any) -> Any:
    """An attribute value as a hashable one (lists as tuples, mappings as sorted item tuples)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return value


def _matches(point: MetricPoint, name: str, labels: dict[str, Any]) -> bool:
    return point.name == name and all(point.attributes.get(k) == v for k, v in labels.items())


@dataclass
class RunEvidence:
    """Both phases of one run, read from ``path``. ``problems``: what could not be read (skipped)."""

    path: Path
    control: PhaseEvidence
    faulted: PhaseEvidence
    problems: list[EvidenceProblem] = field(default_factory=list)
    _promql: Any = field(default=None, init=False, repr=False, compare=False)

    def phase(self, name: str) -> PhaseEvidence:
        return {"control": self.control, "faulted": self.faulted}[name]

    @property
    def has_control(self) -> bool:
        """Whether the control phase ran (False for ``faultlib run --no-control``)."""
        return self.control.status != "skipped"

    @property
    def phases(self) -> list[PhaseEvidence]:
        """The phases that ran, control first: ``[control, faulted]``, or ``[faulted]`` without a control,
        for checks that hold in every phase (``for phase in evidence.phases``)."""
        return [self.control, self.faulted] if self.has_control else [self.faulted]

    @property
    def dumps(self) -> Path:
        return self.path / layout.DUMPS

    def promql(self, query_id: str, *, phase: str, window: str = "run"):
        """The PromQL result of query ``query_id`` (``observability.promql`` of case.yaml) in ``phase`` and
        ``window``, as Prometheus evaluated it over this run's metrics (``faultlib run --prometheus``).

        Reads naturally in an assertion::

            assert evidence.promql("overflow_rate", phase="faulted", window="before").max() == 0
            assert evidence.promql("overflow_rate", phase="faulted", window="during").max() > 0
            assert evidence.promql("overflow_rate", phase="control").max() == 0

        Args:
            query_id: the query's ``id``.
            phase: ``control`` or ``faulted``.
            window: ``before``, ``during``, ``after`` (the fault windows; the control's are the same
                steps as the faulted run's) or ``run`` (the whole phase, default).

        Returns:
            A :class:`faultlib.observability.PromqlSelection`: a sequence of series with ``values()``,
            ``max()`` and ``min()``.

        Raises:
            PromqlNotRecorded: the run was made without ``--prometheus`` (the assertion suite skips the test).
            PromqlError: ``promql.json`` is unreadable, or names no such query or window.
        """
        from faultlib.evidence.promql import load

        if self._promql is None:
            self._promql = load(self.path)
        return self._promql.select(query_id, phase=phase, window=window)


def _decoded(path: Path, problems: list[EvidenceProblem] | None, key: str, decode: Callable[[Any], list],
             max_file_bytes: int) -> Iterator:
    """Decode each line with ``decode`` (all of a line or none of it); a line without a ``key`` list,
    or one ``decode`` fails on, is a problem."""
    problems = [] if problems is None else problems
    for number, value in json_lines(path, problems, max_file_bytes=max_file_bytes):
        try:
            if not isinstance(value, dict) or not isinstance(value.get(key), list):
                raise ValueError(f"no {key!r} list")
            items = decode(value)
        except _DECODE_ERRORS as exc:
            what = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
            problems.append(EvidenceProblem(path.name, number, f"not an OTLP/JSON line with {key} ({what}); skipped"))
            continue
        yield from items


def _resource_phase(block: dict[str, Any]) -> str | None:
    phase = otlp.attributes(block.get("resource", {}).get("attributes")).get("faultlib.phase")
    if phase is not None and not isinstance(phase, str):
        raise ValueError("resource attribute faultlib.phase is not a string")
    return phase


def _resource_attempt(block: dict[str, Any]) -> int:
    attempt = otlp.attributes(block.get("resource", {}).get("attributes")).get("faultlib.attempt", 1)
    if not isinstance(attempt, int) or isinstance(attempt, bool):
        raise ValueError("resource attribute faultlib.attempt is not an integer")
    return attempt


def _str(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not a string")
    return value


def _spans(line: dict[str, Any]) -> list[tuple[str | None, Span]]:
    out = []
    for rs in line["resourceSpans"]:
        phase = _resource_phase(rs)
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                out.append((phase, Span(
                    name=_str(s["name"], "span name"), attributes=otlp.attributes(s.get("attributes")),
                    start_ns=int(s.get("startTimeUnixNano", 0)), end_ns=int(s.get("endTimeUnixNano", 0)),
                    status=int(s.get("status", {}).get("code", 0)),
                    events=tuple((_str(e["name"], "event name"), otlp.attributes(e.get("attributes")))
                                 for e in s.get("events", [])),
                    trace_id=_str(s.get("traceId", ""), "traceId"), span_id=_str(s.get("spanId", ""), "spanId"),
                    parent_span_id=_str(s.get("parentSpanId", ""), "parentSpanId"))))
    return out


def _points(line: dict[str, Any]) -> list[tuple[str | None, MetricPoint]]:
    out = []
    for rm in line["resourceMetrics"]:
        phase, attempt = _resource_phase(rm), _resource_attempt(rm)
        for sm in rm.get("scopeMetrics", []):
            for m in sm.get("metrics", []):
                for kind in ("sum", "gauge", "histogram"):
                    if kind not in m:
                        continue
                    body = m[kind]
                    for p in body.get("dataPoints", []):
                        extra: dict[str, Any] = {}
                        if kind == "histogram":
                            value = float(p.get("sum", 0.0))
                            extra = {"count": int(p.get("count", 0)),
                                     "bucket_counts": [int(c) for c in p.get("bucketCounts", [])],
                                     "bounds": [float(b) for b in p.get("explicitBounds", [])]}
                        else:
                            value = float(p["asDouble"]) if "asDouble" in p else float(int(p.get("asInt", 0)))
                        out.append((phase, MetricPoint(
                            name=_str(m["name"], "metric name"), kind=kind, value=value,
                            attributes=otlp.attributes(p.get("attributes")), time_ns=int(p.get("timeUnixNano", 0)),
                            monotonic=bool(body.get("isMonotonic")), extra=extra,
                            description=_str(m.get("description", ""), "metric description"),
                            start_ns=int(p.get("startTimeUnixNano", 0)), attempt=attempt)))
    return out


def _logs(line: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    out = []
    for rl in line["resourceLogs"]:
        phase = _resource_phase(rl)
        for sl in rl.get("scopeLogs", []):
            for r in sl.get("logRecords", []):
                out.append((phase, {"severity": _str(r.get("severityText", ""), "severityText"),
                                    "body": otlp.any_value(r.get("body", {})),
                                    "attributes": otlp.attributes(r.get("attributes")),
                                    "time_ns": int(r.get("timeUnixNano", 0))}))
    return out


def iter_spans(path: Path, problems: list[EvidenceProblem] | None = None, *,
               max_file_bytes: int = LINES_FILE_MAX_BYTES) -> Iterator[tuple[str | None, Span]]:
    """(phase, span) for every span in a ``traces.jsonl`` file; bad lines go to ``problems``."""
    return _decoded(Path(path), problems, "resourceSpans", _spans, max_file_bytes)


def iter_metric_points(path: Path, problems: list[EvidenceProblem] | None = None, *,
                       max_file_bytes: int = LINES_FILE_MAX_BYTES) -> Iterator[tuple[str | None, MetricPoint]]:
    """(phase, point) for every data point of every snapshot in a ``metrics.jsonl`` file, in file
    order; bad lines go to ``problems``. A series appears once per snapshot with its cumulative
    value: use :func:`latest_points` for its value."""
    return _decoded(Path(path), problems, "resourceMetrics", _points, max_file_bytes)


def iter_logs(path: Path, problems: list[EvidenceProblem] | None = None, *,
              max_file_bytes: int = LINES_FILE_MAX_BYTES) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """(phase, log record) for every record in a ``logs.jsonl`` file; bad lines go to ``problems``."""
    return _decoded(Path(path), problems, "resourceLogs", _logs, max_file_bytes)


def _phase_status(run_dir: Path, problems: list[EvidenceProblem]) -> dict[str, dict[str, Any]]:
    """``{phase: {...}}`` from ``run.json``; an unreadable record is a problem and reads as empty."""
    path = run_dir / layout.RUN
    if not os.path.lexists(path):
        return {}
    try:
        data = load_json(read_bytes(path, limits=Limits(max_bytes=64 << 20)), path)
        if not isinstance(data, dict):
            raise InputError("is not a JSON object", path=path)
    except InputError as exc:
        problems.append(EvidenceProblem(layout.RUN, exc.line, exc.message))
        return {}
    return {p: data.get(p) if isinstance(data.get(p), dict) else {} for p in layout.PHASES}


def read_run(run_dir: str | Path, phase_status: dict[str, dict[str, Any]] | None = None) -> RunEvidence:
    """Read a run directory into a :class:`RunEvidence`; never raises on bad evidence (see the
    module docstring): what cannot be read is in ``RunEvidence.problems``.

    Args:
        run_dir: ``<archive>/<case_id>/<run_id>``.
        phase_status: ``{phase: {"exit_code", "status", "attempts"}}``; defaults to what ``run.json`` says.
    """
    run_dir = Path(run_dir)
    problems: list[EvidenceProblem] = []
    if phase_status is None:
        phase_status = _phase_status(run_dir, problems)

    def status(phase: str) -> dict[str, Any]:
        value = phase_status.get(phase) if isinstance(phase_status, dict) else None
        return value if isinstance(value, dict) else {}

    phases = {}
    for p in layout.PHASES:
        exit_code, state, attempts = status(p).get("exit_code"), status(p).get("status", "skipped"), \
            status(p).get("attempts") or []
        phases[p] = PhaseEvidence(p, exit_code=exit_code if isinstance(exit_code, int) else None,
                                  status=state if isinstance(state, str) else "skipped",
                                  attempts=[a for a in attempts if isinstance(a, dict)] if isinstance(attempts, list)
                                  else [])
    for phase, span in iter_spans(run_dir / layout.TRACES, problems):
        if phase in phases:
            phases[phase].spans.append(span)
    for phase, point in iter_metric_points(run_dir / layout.METRICS, problems):
        if phase in phases:
            phases[phase].metric_history.append(point)
    for evidence in phases.values():
        evidence.metric_history.sort(key=lambda p: p.time_ns)  # stable: file order on a tie
        evidence.metrics = latest_points(evidence.metric_history)
    for phase, log in iter_logs(run_dir / layout.LOGS, problems):
        if phase in phases:
            phases[phase].logs.append(log)
    for phase, findings in read_findings(run_dir, problems).items():
        phases[phase].findings = findings
    return RunEvidence(run_dir, phases["control"], phases["faulted"], problems)


def read_findings(run_dir: str | Path, problems: list[EvidenceProblem] | None = None, *,
                  max_file_bytes: int = LINES_FILE_MAX_BYTES) -> dict[str, list[Finding]]:
    """``{phase: [Finding, ...]}`` from ``findings.jsonl`` alone (cheap: no trace parsing). Each line must
    be ``{"phase": "control"|"faulted", "finding": {...}}`` with a finding valid against
    ``finding.schema.json``; other lines go to ``problems``."""
    from faultlib import schemas

    validator = schemas.validator("finding")
    out: dict[str, list[Finding]] = {p: [] for p in layout.PHASES}
    problems = [] if problems is None else problems
    path = Path(run_dir) / layout.FINDINGS
    for number, line in json_lines(path, problems, max_file_bytes=max_file_bytes):
        why = None
        if not isinstance(line, dict) or set(line) != {"phase", "finding"}:
            why = 'not a {"phase", "finding"} object'
        elif line["phase"] not in out:
            why = f"phase {line['phase']!r} is not one of {', '.join(layout.PHASES)}"
        else:
            error = next(iter(sorted(validator.iter_errors(line["finding"]), key=lambda e: list(e.path))), None)
            if error is not None:
                field_path = ".".join(str(p) for p in error.absolute_path)
                why = f"invalid finding: {field_path + ': ' if field_path else ''}{error.message}"
        if why is None:
            try:
                json.dumps(line["finding"], ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                why = "invalid finding: holds text that is not valid Unicode (a lone surrogate)"
        if why is None:
            try:
                out[line["phase"]].append(Finding.from_json(line["finding"]))
                continue
            except (KeyError, TypeError, ValueError) as exc:
                why = f"invalid finding: {exc}"
        problems.append(EvidenceProblem(path.name, number, f"{why}; skipped"))
    return out
