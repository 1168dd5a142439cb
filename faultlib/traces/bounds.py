"""What a case made from a trace can name: every service and span name of the trace becomes an id, a label, a PromQL
string and a literal of the case (``faultlib new --from-trace``), and every service a container of its
compose.yaml. A trace beyond these bounds is bad input (exit 2) refused before anything is rendered, naming the
file and, for a name, its line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from faultlib.errors import InputError
from faultlib.traces.graph import SpanGraph
from faultlib.traces.load import TraceSpan

MAX_NAME_CHARS = 256  # a service or span name longer than this cannot name a case's spans and queries
#: most services a case stands up (compose.yaml runs a container for each: 20,000 took 100 s and 700 MB to render,
#: then a 9.5 MiB compose file the case loader refused)
MAX_SERVICES = 1000
#: most (service, operation) nodes (case.yaml lists every span name the case expects)
MAX_OPERATIONS = 5000


def checked_names(spans: Iterable[TraceSpan], trace: Path | None) -> Iterator[TraceSpan]:
    """``spans``, each checked as it streams past: a service or span name over :data:`MAX_NAME_CHARS` is refused."""
    for span in spans:
        for what, text in (("service.name", span.service), ("span name", span.name)):
            if len(text) > MAX_NAME_CHARS:
                raise InputError(f"a {what} of {len(text):,} characters ({text[:40]!r}...) is longer than a case "
                                 f"can name ({MAX_NAME_CHARS}): shorten it in the trace", path=str(trace),
                                 line=span.line)
        yield span


def check_size(graph: SpanGraph, trace: Path | None) -> None:
    """Refuse a graph with more services or operations than a case can stand up (see the module docstring)."""
    services, nodes = len(graph.services), len(graph.nodes)
    if services > MAX_SERVICES or nodes > MAX_OPERATIONS:
        raise InputError(f"the trace holds {services:,} services and {nodes:,} operations, more than a case can stand "
                         f"up ({MAX_SERVICES:,} services, {MAX_OPERATIONS:,} operations: compose.yaml runs a container "
                         "for each service): export the traces of the incident only (the requests that failed or "
                         "slowed, and the services on their path)", path=str(trace))
