"""``faultlib new NAME`` without ``--from-trace`` writes a test_case.py whose docstring said "generated from an
incident trace": it names what the case came from, the trace or no trace."""

from __future__ import annotations

import ast
import json

from faultlib.traces.scaffold import render


def _docstring(scaffold) -> str:
    return ast.get_docstring(ast.parse(scaffold.files["test_case.py"])) or ""


def test_a_case_from_no_trace_does_not_claim_one():
    doc = _docstring(render("slow_checkout", None))
    assert "incident trace" not in doc and "without a trace" in doc and "placeholder" in doc, doc


def test_a_case_from_a_trace_still_says_so(tmp_path):
    span = {"traceId": "a" * 32, "name": "GET /pay", "kind": 2, "startTimeUnixNano": "1000000000",
            "endTimeUnixNano": "1900000000"}
    child = {**span, "spanId": "c" * 16, "parentSpanId": "b" * 16, "name": "POST /charge", "kind": 3}
    doc = {"resourceSpans": [
        {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "shop"}}]},
         "scopeSpans": [{"spans": [{**span, "spanId": "b" * 16}, child]}]},
        {"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "bank"}}]},
         "scopeSpans": [{"spans": [{**child, "spanId": "d" * 16, "parentSpanId": "c" * 16, "kind": 2}]}]}]}
    (tmp_path / "incident.json").write_text(json.dumps(doc))
    assert "generated from an incident trace" in _docstring(render("slow_checkout", tmp_path / "incident.json"))
