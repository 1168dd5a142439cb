"""A real, instrumented two-service app on 127.0.0.1, for producing real OTLP/JSON traces.

``frontend`` (``GET /order?id=N``, span ``frontend.order``) calls ``inventory`` (``GET /item?id=N``,
span ``inventory.lookup``) over HTTP through a client span ``inventory.get``, with W3C trace context.
Each service has its own ``TracerProvider`` and resource ``service.name``; both export through
faultlib's OTLP/JSON file exporter (one ``ExportTraceServiceRequest`` per line: our traces.jsonl).
Ids in ``slow`` take ``slow_ms`` in inventory; ids in ``broken`` raise there (500, status ERROR,
an ``exception`` event).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from faultlib.evidence.otlp import make_span_exporter

PROPAGATOR = TraceContextTextMapPropagator()


def _provider(service: str, exporter) -> TracerProvider:
    provider = TracerProvider(resource=Resource.create({"service.name": service, "deployment.environment": "test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def _server(handler_cls) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@contextmanager
def two_services(out: Path, *, slow: set[int] = frozenset(), broken: set[int] = frozenset(), slow_ms: float = 150,
                 normal_ms: float = 3):
    exporter = make_span_exporter(out)
    inv_tracer = _provider("inventory", exporter).get_tracer("inventory")
    front_tracer = _provider("frontend", exporter).get_tracer("frontend")

    class Inventory(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            item = int(parse_qs(urlparse(self.path).query)["id"][0])
            ctx = PROPAGATOR.extract({k.lower(): v for k, v in self.headers.items()})
            with inv_tracer.start_as_current_span("inventory.lookup", context=ctx, kind=trace.SpanKind.SERVER,
                                                  record_exception=True, set_status_on_exception=True) as span:
                span.set_attribute("item.id", item)
                span.set_attribute("x.unknown.attribute", {"not": "a primitive"}.__repr__())
                try:
                    time.sleep((slow_ms if item in slow else normal_ms) / 1e3)
                    if item in broken:
                        raise LookupError(f"item {item} is corrupt")
                    code, body = 200, {"id": item, "stock": item % 7}
                except LookupError as exc:
                    span.record_exception(exc)
                    span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))
                    code, body = 500, {"error": str(exc)}
                span.set_attribute("http.status_code", code)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    inventory = _server(Inventory)
    inv_url = f"http://127.0.0.1:{inventory.server_address[1]}"

    class Frontend(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            item = int(parse_qs(urlparse(self.path).query)["id"][0])
            ctx = PROPAGATOR.extract({k.lower(): v for k, v in self.headers.items()})
            with front_tracer.start_as_current_span("frontend.order", context=ctx, kind=trace.SpanKind.SERVER) as span:
                with front_tracer.start_as_current_span("inventory.get", kind=trace.SpanKind.CLIENT) as client:
                    client.set_attribute("peer.service", "inventory")
                    headers: dict[str, str] = {}
                    PROPAGATOR.inject(headers)
                    try:
                        with urllib.request.urlopen(urllib.request.Request(f"{inv_url}/item?id={item}",
                                                                           headers=headers), timeout=5) as resp:
                            code = resp.status
                    except urllib.error.HTTPError as exc:
                        code = exc.code
                    client.set_attribute("http.status_code", code)
                    if code >= 500:
                        client.set_status(trace.Status(trace.StatusCode.ERROR, f"inventory answered {code}"))
                span.set_attribute("http.status_code", 502 if code >= 500 else 200)
            status = 502 if code >= 500 else 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    frontend = _server(Frontend)
    front_url = f"http://127.0.0.1:{frontend.server_address[1]}"

    def order(item: int) -> int:
        try:
            with urllib.request.urlopen(f"{front_url}/order?id={item}", timeout=10) as resp:
                return resp.status
        except urllib.error.HTTPError as exc:
            return exc.code

    try:
        yield order
    finally:
        frontend.shutdown()
        inventory.shutdown()
        frontend.server_close()
        inventory.server_close()
        exporter.shutdown()


def record(out: Path, requests: int = 30, **kwargs) -> Path:
    """Run ``requests`` orders through the two services, writing their spans to ``out``."""
    with two_services(out, **kwargs) as order:
        for i in range(requests):
            order(i)
    return out
