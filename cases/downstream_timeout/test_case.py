"""Assertion suite of downstream_timeout; the `evidence` fixture comes from faultlib.cases.fixture."""

from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
SHIM = CASE["inject"]["local"][0]["params"]
FIRST, LAST = SHIM["start_step"], SHIM["start_step"] + SHIM["steps"] - 1
DEADLINE_MS, MARGIN_MS = PARAMS["deadline_ms"], PARAMS["margin_ms"]


def requests(phase):
    return phase.steps("serve.request")


def in_window(spans, first, last):
    return [s for s in spans if first <= s.attributes["faultlib.step"] <= last]


def assert_normal(span):
    a = span.attributes
    assert a["http.status_code"] == 200 and a["status"] == "ok", f"request {a['faultlib.step']}: {a}"
    assert a["label"] == a["expected_label"], f"request {a['faultlib.step']} disagrees with the model called directly"


def test_control_answers_every_request_correctly(evidence):
    spans = requests(evidence.control)
    assert len(spans) == PARAMS["requests"]
    for span in spans:
        assert_normal(span)
    accuracy = sum(s.attributes["label"] == s.attributes["true_label"] for s in spans) / len(spans)
    assert accuracy >= 0.93, f"served accuracy {accuracy:.3f}"


def test_control_raises_no_finding(evidence):
    assert evidence.control.status == "ok"
    assert evidence.control.findings == []
    assert evidence.control.summary["timeouts"] == 0
    assert evidence.control.metric("faultlib_downstream_timeouts_total") == 0


def test_requests_before_the_delay_are_normal(evidence):
    before = in_window(requests(evidence.faulted), 0, FIRST - 1)
    assert len(before) == FIRST
    for span in before:
        assert_normal(span)
        assert span.attributes["faultlib.fault.window"] == "before"


def test_delayed_requests_get_the_timeout_status_at_the_deadline(evidence):
    during = in_window(requests(evidence.faulted), FIRST, LAST)
    assert len(during) == LAST - FIRST + 1
    for span in during:
        a = span.attributes
        assert a["http.status_code"] == 504 and a["status"] == "timeout", f"request {a['faultlib.step']}: {a}"
        assert a["latency_ms"] <= DEADLINE_MS + MARGIN_MS, f"request {a['faultlib.step']} took {a['latency_ms']:.1f} ms"
        # it gave up because of the deadline, not earlier: the downstream wait used the budget
        assert a["downstream_ms"] >= 0.8 * DEADLINE_MS
    assert evidence.faulted.metric("faultlib_downstream_timeouts_total", window="during") == len(during)
    # the model service really went through the shim's proxy, not straight to the feature service
    summary = evidence.faulted.summary
    assert summary["feature_port_used"] != summary["feature_port_real"]
    assert evidence.control.summary["feature_port_used"] == evidence.control.summary["feature_port_real"]


def test_slo_detector_reports_timeouts_and_p99(evidence):
    findings = [f for f in evidence.faulted.findings if f.detector == "latency_slo"]
    messages = " | ".join(f.message for f in findings)
    ratio = [f for f in findings if "timeout status" in f.message]
    assert len(ratio) == 1, messages
    assert ratio[0].location["step"] == FIRST
    assert ratio[0].evidence["timeouts"] == LAST - FIRST + 1
    assert any("P99 latency" in f.message for f in findings), messages
    assert not [f for f in findings if f.severity.value == "error"], f"late answers: {messages}"


def test_no_other_5xx_no_client_error_no_traceback(evidence):
    for phase in (evidence.control, evidence.faulted):
        assert phase.status == "ok" and phase.exit_code == 0
        codes = {s.attributes["http.status_code"] for s in requests(phase)}
        assert codes <= {200, 504}, f"{phase.name}: unexpected HTTP codes {codes}"
        assert not [s for s in requests(phase) if s.attributes["status"] == "client_error"]
    stderr = (evidence.path / "stderr.txt").read_text()
    assert "Traceback" not in stderr and "Error handling request" not in stderr, stderr[-2000:]


def test_service_recovers_once_the_delay_is_gone(evidence):
    after = in_window(requests(evidence.faulted), LAST + 1, PARAMS["requests"] - 1)
    assert len(after) == PARAMS["requests"] - LAST - 1
    for span in after:
        assert_normal(span)
        assert span.attributes["faultlib.fault.window"] == "after"
    assert after[0].attributes["latency_ms"] < DEADLINE_MS / 2, "the first request after the delay is still slow"
    assert evidence.faulted.summary["p99_after_ms"] < DEADLINE_MS / 2


def test_p99_of_both_runs_is_in_the_evidence(evidence):
    control, faulted = evidence.control.summary, evidence.faulted.summary
    for summary in (control, faulted):
        assert 0 < summary["p50_ms"] <= summary["p99_ms"] <= summary["max_ms"]
    assert control["p99_ms"] < PARAMS["p99_objective_ms"]
    assert DEADLINE_MS * 0.9 <= faulted["p99_ms"] <= DEADLINE_MS + MARGIN_MS
    assert faulted["p99_during_ms"] >= DEADLINE_MS * 0.9 and faulted["p99_before_ms"] < DEADLINE_MS / 2
    for phase in (evidence.control, evidence.faulted):
        histogram = [p for p in phase.metrics if p.name == "faultlib_request_duration_ms"]
        assert sum(p.extra["count"] for p in histogram) == PARAMS["requests"]


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    names = {p.name for p in evidence.faulted.metrics}
    assert set(CASE["observability"]["metrics"]) <= names
    for phase in (evidence.control, evidence.faulted):
        assert set(CASE["observability"]["spans"]) <= {s.name for s in phase.spans}
        # the client's request span is the parent of the service's span (W3C trace context over HTTP)
        request_ids = {s.span_id for s in requests(phase)}
        served = phase.spans_named("model_service.predict")
        assert len(served) >= PARAMS["requests"]
        assert sum(s.parent_span_id in request_ids for s in served) == PARAMS["requests"]
    for query in CASE["observability"]["promql"]:
        assert any(m in query["query"] for m in names), query["id"]


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("downstream_timeouts", phase="faulted", window="before").max() == 0
    assert evidence.promql("downstream_timeouts", phase="faulted", window="during").max() > 0
    assert evidence.promql("downstream_timeouts", phase="control").max() == 0
