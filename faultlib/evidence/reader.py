"""Reading a run's evidence back: typed spans, metric points, logs and findings per phase.

Used by the assertion-suite fixture (``evidence``), the runner and ``faultlib archive``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from faultlib.evidence import layout, otlp
from faultlib.findings import Finding


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
    """One data point; ``kind`` is ``sum``, ``gauge`` or ``histogram``. For a histogram,
    ``value`` is the sum and ``extra`` holds count, bucket counts and bounds."""

    name: str
    kind: str
    value: float
    attributes: dict[str, Any]
    time_ns: int
    monotonic: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    description: str = ""


@dataclass
class PhaseEvidence:
    """Evidence of one phase (``control`` or ``faulted``).

    Attributes:
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
    logs: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)

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
        latest: dict[tuple, MetricPoint] = {}
        for point in self.metrics:
            if point.name != name or any(point.attributes.get(k) != v for k, v in labels.items()):
                continue
            key = tuple(sorted(point.attributes.items()))
            if key not in latest or point.time_ns >= latest[key].time_ns:
                latest[key] = point
        if not latest:
            names = sorted({p.name for p in self.metrics})
            raise KeyError(f"no metric {name!r} with {labels} in phase {self.name}; metrics: {names}")
        return sum(p.value for p in latest.values())


@dataclass
class RunEvidence:
    """Both phases of one run, read from ``path``."""

    path: Path
    control: PhaseEvidence
    faulted: PhaseEvidence

    def phase(self, name: str) -> PhaseEvidence:
        return {"control": self.control, "faulted": self.faulted}[name]

    @property
    def dumps(self) -> Path:
        return self.path / layout.DUMPS


def _resource_phase(block: dict[str, Any]) -> str | None:
    return otlp.attributes(block.get("resource", {}).get("attributes")).get("faultlib.phase")


def iter_spans(path: Path) -> Iterator[tuple[str | None, Span]]:
    """(phase, span) for every span in a ``traces.jsonl`` file."""
    for line in otlp.read_lines(path):
        for rs in line.get("resourceSpans", []):
            phase = _resource_phase(rs)
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    yield phase, Span(
                        name=s["name"], attributes=otlp.attributes(s.get("attributes")),
                        start_ns=int(s.get("startTimeUnixNano", 0)), end_ns=int(s.get("endTimeUnixNano", 0)),
                        status=int(s.get("status", {}).get("code", 0)),
                        events=tuple((e["name"], otlp.attributes(e.get("attributes"))) for e in s.get("events", [])),
                        trace_id=s.get("traceId", ""), span_id=s.get("spanId", ""),
                        parent_span_id=s.get("parentSpanId", ""))


def iter_metric_points(path: Path) -> Iterator[tuple[str | None, MetricPoint]]:
    """(phase, point) for every data point in a ``metrics.jsonl`` file."""
    for line in otlp.read_lines(path):
        for rm in line.get("resourceMetrics", []):
            phase = _resource_phase(rm)
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
                            yield phase, MetricPoint(
                                name=m["name"], kind=kind, value=value, attributes=otlp.attributes(p.get("attributes")),
                                time_ns=int(p.get("timeUnixNano", 0)), monotonic=bool(body.get("isMonotonic")),
                                extra=extra, description=m.get("description", ""))


def iter_logs(path: Path) -> Iterator[tuple[str | None, dict[str, Any]]]:
    for line in otlp.read_lines(path):
        for rl in line.get("resourceLogs", []):
            phase = _resource_phase(rl)
            for sl in rl.get("scopeLogs", []):
                for r in sl.get("logRecords", []):
                    yield phase, {"severity": r.get("severityText", ""),
                                  "body": otlp.any_value(r.get("body", {})),
                                  "attributes": otlp.attributes(r.get("attributes")),
                                  "time_ns": int(r.get("timeUnixNano", 0))}


def read_run(run_dir: str | Path, phase_status: dict[str, dict[str, Any]] | None = None) -> RunEvidence:
    """Read a run directory into a :class:`RunEvidence`.

    Args:
        run_dir: ``<archive>/<case_id>/<run_id>``.
        phase_status: ``{phase: {"exit_code", "status"}}``; defaults to what ``run.json`` says.
    """
    run_dir = Path(run_dir)
    if phase_status is None:
        record = run_dir / layout.RUN
        data = json.loads(record.read_text()) if record.is_file() else {}
        phase_status = {p: data.get(p) or {} for p in layout.PHASES}
    phases = {p: PhaseEvidence(p, exit_code=(phase_status.get(p) or {}).get("exit_code"),
                               status=(phase_status.get(p) or {}).get("status", "skipped"),
                               attempts=list((phase_status.get(p) or {}).get("attempts") or []))
              for p in layout.PHASES}
    for phase, span in iter_spans(run_dir / layout.TRACES):
        if phase in phases:
            phases[phase].spans.append(span)
    for phase, point in iter_metric_points(run_dir / layout.METRICS):
        if phase in phases:
            phases[phase].metrics.append(point)
    for phase, log in iter_logs(run_dir / layout.LOGS):
        if phase in phases:
            phases[phase].logs.append(log)
    for phase, findings in read_findings(run_dir).items():
        phases[phase].findings = findings
    return RunEvidence(run_dir, phases["control"], phases["faulted"])


def read_findings(run_dir: str | Path) -> dict[str, list[Finding]]:
    """``{phase: [Finding, ...]}`` from ``findings.jsonl`` alone (cheap: no trace parsing)."""
    out: dict[str, list[Finding]] = {p: [] for p in layout.PHASES}
    for line in otlp.read_lines(Path(run_dir) / layout.FINDINGS):
        if line.get("phase") in out:
            out[line["phase"]].append(Finding.from_json(line["finding"]))
    return out
