"""Evidence: record spans, metrics, logs and findings from a repro (OpenTelemetry SDK,
written as OTLP/JSON) and read them back for assertions and archives."""

from faultlib.evidence.reader import MetricPoint, PhaseEvidence, RunEvidence, Span, read_run

__all__ = ["MetricPoint", "PhaseEvidence", "RunEvidence", "Span", "read_run"]
