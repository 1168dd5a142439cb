"""Injection points the catalog does not cover yet, proposed from new traces (``faultlib regen --traces``).

The traces (OTLP/JSON, read by :func:`faultlib.traces.load_spans`) make a span graph
(:func:`faultlib.traces.build_graph`): nodes are ``(service, operation)``, edges parent -> child calls.
An edge is *covered* when a case of the catalog names its callee, the child node, in one of these ways:

- the child's operation (span name) is one of the case's ``observability.spans``. That list is the
  case's recorded graph: every run of the case records those spans (each case's suite checks it), under
  the service name of the case id, which is why operations, not services, are compared;
- the child's service is one of the case's ``topology.services``, or the endpoint of one of its
  ``tcp_latency`` shims (compared as DNS names: ``feature_service`` is ``feature-service``).

Every edge no case covers gets a proposal, the same injection ``faultlib new --from-trace`` writes
(:func:`faultlib.traces.scaffold.latency_injection`): a ``tcp_latency`` shim on the callee's endpoint
(:func:`faultlib.traces.suspect.endpoint_name`) delaying its responses by :data:`LATENCY_FACTOR` times the
edge's P99 (at least 300 ms, at most 60 s), and the NetworkChaos ``delay`` twin on the callee pods' traffic
to the caller pods, checked against the Chaos Mesh CRD schema when a CRD directory is given
(:class:`faultlib.chaos.CrdSchemas`). Nothing is written: ``faultlib new NAME --from-trace TRACE`` turns
the trace's most suspicious edge into a case.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faultlib.cases import Case
    from faultlib.traces.graph import Edge, SpanGraph
    from faultlib.traces.load import TraceSpan

#: a proposal delays a call by this many times its P99 (the outlier factor of faultlib.traces.suspect)
LATENCY_FACTOR = 3.0
#: a run id for rendering a proposal's Chaos Mesh object (only its form matters: validation)
PROPOSAL_RUN_ID = "00000000T000000Z-000000"
PEER_SERVICE_KEYS = ("peer.service", "rpc.service")


@dataclass(frozen=True)
class Coverage:
    """What each case of a catalog names: ``operations`` (its ``observability.spans``) and ``services``
    (DNS names of its ``topology.services`` and of its ``tcp_latency`` endpoints), per case id."""

    operations: dict[str, frozenset[str]]
    services: dict[str, frozenset[str]]

    @classmethod
    def of(cls, cases: Iterable[Case]) -> Coverage:
        from faultlib.traces.scaffold import dns_name

        operations, services = {}, {}
        for case in cases:
            raw = case.raw
            operations[case.id] = frozenset((raw.get("observability") or {}).get("spans") or ())
            names = list((raw.get("topology") or {}).get("services") or ())
            names += [s.params.get("endpoint") for s in case.shims if s.name == "tcp_latency"]
            services[case.id] = frozenset(dns_name(n) for n in names if isinstance(n, str) and n)
        return cls(operations, services)

    def covering(self, edge: Edge) -> list[str]:
        """The ids of the cases that cover ``edge`` (see the module docstring), sorted."""
        from faultlib.traces.scaffold import dns_name

        service, operation = edge[1]
        dns = dns_name(service)
        return sorted(case for case in self.operations
                      if operation in self.operations[case] or dns in self.services[case])


@dataclass(frozen=True)
class Proposal:
    """A proposed injection point for one uncovered edge.

    Attributes:
        edge: ``((parent service, operation), (child service, operation))``.
        stats: the edge's calls, errors, error rate, P50 and P99 in ms (:meth:`EdgeStats.to_json`).
        endpoint: the endpoint name a repro resolves with ``ctx.endpoint`` (the shim's ``endpoint``).
        shim: the ``inject.local`` entry (``tcp_latency``).
        chaos: the ``inject.kubernetes.chaos`` entry (``{kind: NetworkChaos, name, spec}``).
        validated: True when the rendered object matched its CRD schema, None when no CRD directory was given.
        problems: how the rendered object breaks the schema (empty when valid or not checked).
    """

    edge: Edge
    stats: dict[str, Any]
    endpoint: str
    shim: dict[str, Any]
    chaos: dict[str, Any]
    validated: bool | None = None
    problems: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        (ps, po), (cs, co) = self.edge
        return {"edge": {"parent": {"service": ps, "operation": po}, "child": {"service": cs, "operation": co},
                         **self.stats},
                "endpoint": self.endpoint, "shim": self.shim, "chaos": self.chaos, "validated": self.validated,
                "problems": list(self.problems)}


@dataclass(frozen=True)
class TraceProposals:
    """The outcome of ``--traces``: ``covered`` maps each covered edge to the cases covering it."""

    trace: Path
    graph: SpanGraph
    covered: dict[Edge, list[str]]
    proposals: tuple[Proposal, ...]

    def to_json(self) -> dict[str, Any]:
        return {"trace": str(self.trace), "spans": self.graph.spans, "edges": len(self.graph.edges),
                "covered": [{"parent": {"service": p[0], "operation": p[1]},
                             "child": {"service": c[0], "operation": c[1]}, "cases": cases}
                            for (p, c), cases in sorted(self.covered.items())],
                "proposals": [p.to_json() for p in self.proposals]}


def _callee(edge: Edge, spans: list[TraceSpan]) -> str:
    """The service the child span calls into: its own service when it differs from the parent's, else the
    ``peer.service`` (or ``rpc.service``) a client span names, else its own service."""
    (parent_service, _), (child_service, _) = edge
    if child_service != parent_service:
        return child_service
    for span in spans:
        if (span.service, span.name) == edge[1]:
            for key in PEER_SERVICE_KEYS:
                value = span.attributes.get(key)
                if isinstance(value, str) and value:
                    return value
    return child_service


def propose(trace: Path | str, cases: Iterable[Case], *, crd_dir: Path | str | None = None) -> TraceProposals:
    """Read ``trace`` and propose an injection point for every edge no case covers.

    Args:
        trace: OTLP/JSON traces (Collector file export, ``traces.jsonl``, one document; gzip ok).
        cases: the loaded cases of the catalog.
        crd_dir: Chaos Mesh CRD manifests to validate each proposal's object against (None: not validated).

    Returns:
        The graph, the covered edges with their cases, and the proposals sorted by edge.

    Raises:
        InputError: the trace is unreadable, empty, not JSON, not OTLP or truncated (exit 2).
        FaultlibError: ``crd_dir`` is not a directory or lacks the NetworkChaos CRD (exit 2).
    """
    from faultlib.chaos import CrdSchemas, render_chaos
    from faultlib.chaos.render import ChaosEntry
    from faultlib.traces import build_graph, load_spans
    from faultlib.traces.scaffold import latency_injection, latency_ms_for
    from faultlib.traces.suspect import endpoint_name

    trace = Path(trace)
    spans = load_spans(trace)
    graph = build_graph(spans)
    coverage = Coverage.of(cases)
    schemas = CrdSchemas(crd_dir) if crd_dir is not None else None
    covered: dict[Edge, list[str]] = {}
    proposals = []
    for edge in sorted(graph.edges):
        by = coverage.covering(edge)
        if by:
            covered[edge] = by
            continue
        stats = graph.edges[edge]
        endpoint = endpoint_name(edge, graph.peers.get(edge[1]))
        shim, chaos = latency_injection(edge[0][0], _callee(edge, spans), endpoint,
                                        latency_ms_for(LATENCY_FACTOR * stats.p99_ms))
        validated, problems = None, ()
        if schemas is not None:
            [obj] = render_chaos([ChaosEntry(chaos["kind"], chaos["name"], chaos["spec"])], case_id="proposal",
                                 run_id=PROPOSAL_RUN_ID, namespace="default")
            problems = tuple(str(p) for p in schemas.problems(obj))
            validated = not problems
        proposals.append(Proposal(edge, stats.to_json(), endpoint, shim, chaos, validated, problems))
    return TraceProposals(trace, graph, covered, tuple(proposals))
