"""Which edge of an incident trace to inject a fault on.

Order of preference (the first that applies wins; ties go to the edge that crosses services, then
to more failures or the larger P99):

1. ``error``: edges with failed child spans (status ERROR or an ``exception`` event);
2. ``latency_outlier``: edges with a child span slower than ``OUTLIER_FACTOR`` x the median duration
   of all child spans in the trace and at least ``OUTLIER_MIN_MS`` slower (the trace judged against
   its own distribution, not against a fixed objective);
3. ``slowest``: otherwise the edge with the largest P99.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from faultlib.errors import InputError
from faultlib.traces.graph import Edge, SpanGraph

OUTLIER_FACTOR = 3.0
OUTLIER_MIN_MS = 20.0


@dataclass(frozen=True)
class Suspect:
    """The chosen edge: ``reason`` is ``error``, ``latency_outlier`` or ``slowest``; ``endpoint`` the
    name a repro resolves with ``ctx.endpoint`` (``[A-Za-z0-9_]``); ``stats`` the edge's numbers;
    ``median_ms`` the median child-span duration of the whole trace; ``threshold_ms`` the outlier bound."""

    edge: Edge
    reason: str
    endpoint: str
    stats: dict
    median_ms: float
    threshold_ms: float
    status_codes: tuple[int, ...] = ()

    @property
    def parent(self):
        return self.edge[0]

    @property
    def child(self):
        return self.edge[1]


def endpoint_name(edge: Edge, peer: str | None = None) -> str:
    """A snake_case endpoint name for ``edge``: ``peer``, the child's ``peer.service``-like attribute
    (:data:`~faultlib.traces.graph.PEER_KEYS`, :attr:`SpanGraph.peers`), else the child's service when it differs
    from the parent's, else the span name's first dotted part."""
    (parent_service, _), (child_service, child_name) = edge
    raw = peer if peer else child_service if child_service != parent_service else child_name.split(".")[0]
    name = re.sub(r"[^a-z0-9]+", "_", raw.lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"svc_{name}" if name else "downstream"
    return name[:63]


def pick_suspect(graph: SpanGraph) -> Suspect:
    """The edge to inject on (see the module docstring).

    Raises:
        InputError: the trace has no parent -> child edge at all (nothing to inject between).
    """
    if not graph.edges:
        raise InputError("the trace has no parent -> child call (every span is a root): export a trace "
                         "in which one service calls another")
    all_ms = [d for stats in graph.edges.values() for d in stats.durations_ms]
    median = statistics.median(all_ms)
    threshold = max(OUTLIER_FACTOR * median, median + OUTLIER_MIN_MS)

    def crosses(edge: Edge) -> bool:
        return edge[0][0] != edge[1][0]

    errors = [e for e, s in graph.edges.items() if s.errors]
    outliers = [e for e, s in graph.edges.items() if max(s.durations_ms, default=0) > threshold]
    if errors:
        reason, edge = "error", max(errors, key=lambda e: (crosses(e), graph.edges[e].errors, graph.edges[e].p99_ms))
    elif outliers:
        reason, edge = "latency_outlier", max(outliers, key=lambda e: (crosses(e), graph.edges[e].p99_ms))
    else:
        reason, edge = "slowest", max(graph.edges, key=lambda e: (crosses(e), graph.edges[e].p99_ms))
    codes = graph.error_codes.get(edge[0], set()) | graph.error_codes.get(edge[1], set())
    return Suspect(edge, reason, endpoint_name(edge, graph.peers.get(edge[1])), graph.edges[edge].to_json(), median,
                   threshold, tuple(sorted(codes)))
