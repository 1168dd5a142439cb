"""Evidence: record spans, metrics, logs and findings from a repro (OpenTelemetry SDK,
written as OTLP/JSON) and read them back for assertions and archives.

The reader's names load :mod:`.reader` on first use (:mod:`faultlib.lazy`): a repro, which only records
(:mod:`.recorder`), does not import the reader, the YAML reader and the evidence problems with it (about
0.05 s of CPU per repro process)."""

from faultlib.lazy import lazy_exports

_EXPORTS = {"MetricPoint": "reader", "PhaseEvidence": "reader", "RunEvidence": "reader", "Span": "reader",
            "read_run": "reader"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
