"""Span graphs from OTLP/JSON traces, and new cases from incident traces.

- :mod:`~faultlib.traces.load`: read trace files (Collector file exporter, ``traces.jsonl``, one JSON
  document; gzip) into :class:`TraceSpan` records, defensively;
- :mod:`~faultlib.traces.graph`: the service -> operation call graph and the diff of two graphs;
- :mod:`~faultlib.traces.suspect`: the failing or slowest edge of an incident;
- :mod:`~faultlib.traces.scaffold`: a complete case directory from an incident (``faultlib new``).
"""

from faultlib.traces.graph import (
           EdgeShift,
           EdgeStats,
           GraphDiff,
           SpanGraph,
           build_graph,
           diff_graphs,
)
from faultlib.traces.load import TraceSpan, iter_spans, load_spans
from faultlib.traces.suspect import Suspect, pick_suspect

__all__ = ["EdgeShift", "EdgeStats", "GraphDiff", "SpanGraph", "Suspect", "TraceSpan", "build_graph", "diff_graphs",
           "iter_spans", "load_spans", "pick_suspect"]
