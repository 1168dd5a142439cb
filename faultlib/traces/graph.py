"""The service -> operation call graph of a set of spans, and the diff of two graphs.

A node is ``(service.name, span name)``; an edge ``parent -> child`` aggregates every span whose
parent is in the same trace: how many calls, the child's latency (P50/P99 in ms, nearest-rank
percentiles of the child spans' own durations) and how many failed (status ERROR or an
``exception`` event). Real traces are messy, and the graph says so instead of failing:

- a span whose parent is not in the file (sampled out, another exporter, a cut-off trace) becomes
  a root and is counted in :attr:`SpanGraph.orphans`;
- a child that starts before its parent (clock skew between services' hosts) still makes its edge,
  its latency is its own duration (measured on one clock), and it is counted in :attr:`SpanGraph.skewed`;
- a span with ``end < start`` lasts 0 ms.

:func:`build_graph` reads its spans once, as they stream (:func:`faultlib.traces.load.iter_spans`), and keeps a
compact record per span (its node, start, duration, failure and a 64-bit hash of its and its parent's
``(trace_id, span_id)``: about 100 bytes, against a few KB for a parsed span), so a trace of 10^6 spans is
joined in ~100 MB wherever in the file a parent comes. Two span ids hashing alike would join a child to the wrong
parent: at 10^6 spans the chance is about 3e-8.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field

from faultlib.traces.load import TraceSpan

Node = tuple[str, str]
Edge = tuple[Node, Node]
#: attributes that name the service a client span calls, in order of preference
PEER_KEYS = ("peer.service", "server.address", "net.peer.name", "rpc.service")
STATUS_KEYS = ("http.status_code", "http.response.status_code")


def nearest_rank(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0 < q <= 100) of ``values`` by nearest rank (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(math.ceil(q / 100 * len(ordered)) - 1, 0)]


@dataclass
class EdgeStats:
    """Calls along one edge. ``durations_ms``: each child span's duration; ``errors``: failed child spans."""

    count: int = 0
    errors: int = 0
    durations_ms: array = field(default_factory=lambda: array("d"))

    @property
    def p50_ms(self) -> float:
        return nearest_rank(self.durations_ms, 50)

    @property
    def p99_ms(self) -> float:
        return nearest_rank(self.durations_ms, 99)

    @property
    def error_rate(self) -> float:
        return self.errors / self.count if self.count else 0.0

    def to_json(self) -> dict:
        return {"count": self.count, "errors": self.errors, "error_rate": round(self.error_rate, 6),
                "p50_ms": round(self.p50_ms, 3), "p99_ms": round(self.p99_ms, 3)}


@dataclass
class SpanGraph:
    """A call graph. ``nodes``: every (service, operation) seen; ``edges``: parent -> child stats;
    ``roots``: nodes of spans without a parent in the file; ``orphans``: spans that name a parent
    the file lacks; ``skewed``: children that start before their parent; ``peers``: per node, the first
    :data:`PEER_KEYS` attribute of its spans (the service it calls); ``error_codes``: per node, the HTTP status
    codes >= 400 its spans carry."""

    nodes: set[Node] = field(default_factory=set)
    edges: dict[Edge, EdgeStats] = field(default_factory=dict)
    roots: set[Node] = field(default_factory=set)
    orphans: int = 0
    skewed: int = 0
    spans: int = 0
    peers: dict[Node, str] = field(default_factory=dict)
    error_codes: dict[Node, set[int]] = field(default_factory=dict)

    @property
    def services(self) -> list[str]:
        return sorted({service for service, _ in self.nodes})

    def to_json(self) -> dict:
        return {"nodes": [{"service": s, "operation": o} for s, o in sorted(self.nodes)],
                "edges": [{"parent": {"service": p[0], "operation": p[1]}, "child": {"service": c[0], "operation": c[1]},
                           **stats.to_json()} for (p, c), stats in sorted(self.edges.items())],
                "roots": [{"service": s, "operation": o} for s, o in sorted(self.roots)],
                "orphans": self.orphans, "skewed": self.skewed, "spans": self.spans}


def build_graph(spans: Iterable[TraceSpan]) -> SpanGraph:
    """The call graph of ``spans``, read once (see the module docstring for missing parents, skew and memory)."""
    graph = SpanGraph()
    node_ids: dict[Node, int] = {}
    nodes: list[Node] = []
    index: dict[int, int] = {}  # hash of (trace_id, span_id) -> the span's number
    node_of, start, parent_of = array("l"), array("q"), array("q")
    duration, failed, has_parent = array("d"), bytearray(), bytearray()
    for number, span in enumerate(spans):
        node = (span.service, span.name)
        if node not in node_ids:
            node_ids[node] = len(nodes)
            nodes.append(node)
            graph.nodes.add(node)
        _remember(graph, node, span)
        index[hash((span.trace_id, span.span_id))] = number
        node_of.append(node_ids[node])
        start.append(min(span.start_ns, 2 ** 63 - 1))
        duration.append(span.duration_ms)
        failed.append(span.failed)
        has_parent.append(bool(span.parent_span_id))
        parent_of.append(hash((span.trace_id, span.parent_span_id)) if span.parent_span_id else 0)
    graph.spans = len(node_of)
    for i in range(graph.spans):
        node = nodes[node_of[i]]
        j = index.get(parent_of[i]) if has_parent[i] else None
        if j is None or j == i:
            graph.roots.add(node)
            graph.orphans += has_parent[i]
            continue
        if start[i] < start[j]:
            graph.skewed += 1
        stats = graph.edges.setdefault((nodes[node_of[j]], node), EdgeStats())
        stats.count += 1
        stats.errors += failed[i]
        stats.durations_ms.append(duration[i])
    return graph


def _remember(graph: SpanGraph, node: Node, span: TraceSpan) -> None:
    """What a span's attributes say of its node: the service it calls, HTTP error codes."""
    if node not in graph.peers:
        peer = next((span.attributes[k] for k in PEER_KEYS if isinstance(span.attributes.get(k), str)), None)
        if peer is not None:
            graph.peers[node] = peer
    for key in STATUS_KEYS:
        value = span.attributes.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 400:
            graph.error_codes.setdefault(node, set()).add(value)


@dataclass(frozen=True)
class EdgeShift:
    """An edge present in both graphs whose latency or error rate moved."""

    edge: Edge
    before: dict
    after: dict
    reasons: tuple[str, ...]


@dataclass
class GraphDiff:
    """``added``/``removed``: edges in only one graph; ``shifted``: edges whose P50/P99 grew or shrank by
    at least ``latency_ratio`` (and ``min_ms``), or whose error rate moved by ``error_rate_delta``."""

    added: list[Edge]
    removed: list[Edge]
    shifted: list[EdgeShift]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.shifted)


def diff_graphs(before: SpanGraph, after: SpanGraph, *, latency_ratio: float = 1.5, min_ms: float = 5.0,
                error_rate_delta: float = 0.05) -> GraphDiff:
    """What changed from ``before`` to ``after``.

    Args:
        before, after: the two graphs (e.g. the one a case recorded, and an incident's).
        latency_ratio: a P50 or P99 that grew or shrank by this factor is a shift (default 1.5).
        min_ms: ... and by at least this many ms (default 5.0), so jitter on fast calls is no shift.
        error_rate_delta: an error rate that moved by this much is a shift (default 0.05).
    """
    shifted = []
    for edge in sorted(before.edges.keys() & after.edges.keys()):
        old, new = before.edges[edge], after.edges[edge]
        reasons = []
        for name in ("p50_ms", "p99_ms"):
            a, b = getattr(old, name), getattr(new, name)
            if abs(b - a) >= min_ms and max(a, b) >= latency_ratio * max(min(a, b), 1e-9):
                reasons.append(f"{name[:3]} {a:.1f} -> {b:.1f} ms")
        if abs(new.error_rate - old.error_rate) >= error_rate_delta:
            reasons.append(f"error rate {old.error_rate:.2f} -> {new.error_rate:.2f}")
        if reasons:
            shifted.append(EdgeShift(edge, old.to_json(), new.to_json(), tuple(reasons)))
    return GraphDiff(sorted(after.edges.keys() - before.edges.keys()),
                     sorted(before.edges.keys() - after.edges.keys()), shifted)
