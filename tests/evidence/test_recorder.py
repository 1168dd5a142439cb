"""Recorder -> OTLP/JSON files -> reader, round trip through the real OpenTelemetry SDK."""

from __future__ import annotations

import json
import re

from prometheus_client.parser import text_string_to_metric_families

from faultlib.evidence import layout, read_run
from faultlib.evidence.prom import exposition
from faultlib.evidence.recorder import Recorder
from faultlib.findings import Finding, Severity


def _record_phase(run_dir, phase, *, windows=("none",)):
    rec = Recorder(run_dir, service="unit_case", phase=phase, run_id="r1")
    steps = rec.counter("faultlib_unit_steps_total", "unit steps")
    scale = rec.gauge("faultlib_unit_scale", "a gauge")
    latency = rec.histogram("faultlib_unit_latency_ms", "a histogram")
    with rec.span("faultlib.repro"):
        for i, window in enumerate(windows):
            rec.window = window
            with rec.span("train.step", **{"faultlib.step": i, "loss": 0.5 * i}):
                steps.add(1)
                scale.set(2.0 ** i)
                latency.record(3.0 + i)
                if window == "during":
                    rec.report(Finding("unit", Severity.ERROR, "boom", {"step": i}, {"x": 1}))
        rec.log.info("done %d", len(windows))
    rec.close()


def test_round_trip_spans_metrics_logs_findings(tmp_path):
    _record_phase(tmp_path, "control")
    _record_phase(tmp_path, "faulted", windows=("before", "during", "during", "after"))
    ev = read_run(tmp_path, {"control": {"exit_code": 0, "status": "ok"},
                             "faulted": {"exit_code": 0, "status": "ok"}})
    assert [s.attributes["loss"] for s in ev.faulted.steps()] == [0.0, 0.5, 1.0, 1.5]
    assert len(ev.control.steps()) == 1
    assert ev.faulted.metric("faultlib_unit_steps_total") == 4
    assert ev.faulted.metric("faultlib_unit_steps_total", window="during") == 2
    assert ev.control.metric("faultlib_unit_steps_total", window="none") == 1
    assert [f.location["step"] for f in ev.faulted.findings] == [1, 2] and ev.control.findings == []
    assert any(log["body"] == "done 4" for log in ev.faulted.logs)
    assert any(log["severity"] == "ERROR" and "boom" in log["body"] for log in ev.faulted.logs)
    # the finding is also an event on the step span it happened in
    assert ev.faulted.steps()[1].events[0][0] == "faultlib.finding"


def test_otlp_json_uses_hex_ids_and_camel_case(tmp_path):
    _record_phase(tmp_path, "control")
    line = json.loads((tmp_path / layout.TRACES).read_text().splitlines()[0])
    span = line["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert re.fullmatch(r"[0-9a-f]{32}", span["traceId"]) and re.fullmatch(r"[0-9a-f]{16}", span["spanId"])
    assert isinstance(span["startTimeUnixNano"], str) and span["kind"] == 1
    steps = [s for s in read_run(tmp_path, {}).control.spans]
    root = next(s for s in steps if s.name == "faultlib.repro")
    child = next(s for s in steps if s.name == "train.step")
    assert child.parent_span_id == root.span_id and child.trace_id == root.trace_id


def test_prometheus_exposition_parses_with_phase_and_window_labels(tmp_path):
    _record_phase(tmp_path, "control")
    _record_phase(tmp_path, "faulted", windows=("before", "during"))
    text = exposition(tmp_path / layout.METRICS).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    counter = families["faultlib_unit_steps"]
    assert counter.type == "counter" and counter.documentation == "unit steps"
    samples = {(s.labels["phase"], s.labels["window"]): s.value for s in counter.samples if s.name.endswith("_total")}
    assert samples == {("control", "none"): 1.0, ("faulted", "before"): 1.0, ("faulted", "during"): 1.0}
    hist = families["faultlib_unit_latency_ms"]
    assert hist.type == "histogram"
    inf_bucket = [s for s in hist.samples if s.name.endswith("_bucket") and s.labels["le"] == "+Inf"]
    assert sum(s.value for s in inf_bucket) == 3


def test_torn_last_line_is_skipped(tmp_path):
    _record_phase(tmp_path, "control")
    with open(tmp_path / layout.TRACES, "a") as fh:
        fh.write('{"resourceSpans": [{"scopeSp')  # a process killed mid-write
    assert len(read_run(tmp_path, {}).control.steps()) == 1


def test_also_exports_over_otlp_http_when_an_endpoint_is_set(tmp_path, monkeypatch):
    """The real OTLP/HTTP exporters, against a collector stand-in on 127.0.0.1 that decodes what it gets."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    received: dict[str, list] = {"/v1/traces": [], "/v1/metrics": [], "/v1/logs": []}
    decoders = {"/v1/traces": ExportTraceServiceRequest, "/v1/metrics": ExportMetricsServiceRequest,
                "/v1/logs": ExportLogsServiceRequest}

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received[self.path].append(decoders[self.path].FromString(body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        _record_phase(tmp_path, "faulted", windows=("before", "during"))
    finally:
        server.shutdown()
    span_names = {s.name for r in received["/v1/traces"] for rs in r.resource_spans
                  for ss in rs.scope_spans for s in ss.spans}
    assert {"faultlib.repro", "train.step"} <= span_names
    metric_names = {m.name for r in received["/v1/metrics"] for rm in r.resource_metrics
                    for sm in rm.scope_metrics for m in sm.metrics}
    assert "faultlib_unit_steps_total" in metric_names
    bodies = [lr.body.string_value for r in received["/v1/logs"] for rl in r.resource_logs
              for sl in rl.scope_logs for lr in sl.log_records]
    assert "done 2" in bodies
    # the files are still the evidence of record
    assert len(read_run(tmp_path, {}).faulted.steps()) == 2
