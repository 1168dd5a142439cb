"""Reading hostile evidence: every malformed line is skipped and reported, never raised."""

from __future__ import annotations

import json
import os

import pytest
from prometheus_client.parser import text_string_to_metric_families

from faultlib.evidence import layout, read_run
from faultlib.evidence.prom import exposition
from faultlib.evidence.reader import read_findings
from faultlib.evidence.problems import EvidenceProblem
from faultlib.findings import Severity

GOOD_FINDING = {"phase": "faulted", "finding": {"detector": "tiny", "kind": "tiny", "severity": "warning", "message": "m",
                                                 "location": {"step": 1}, "evidence": {}}}


def _span_line(name="train.step", phase="faulted", **extra):
    span = {"name": name, "traceId": "ab", "spanId": "cd", "startTimeUnixNano": "1", "endTimeUnixNano": "2",
            "attributes": [{"key": "faultlib.step", "value": {"intValue": "0"}}], **extra}
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "faultlib.phase",
                                                             "value": {"stringValue": phase}}]},
                               "scopeSpans": [{"spans": [span]}]}]}


def _metric_line(metrics, phase="faulted"):
    return {"resourceMetrics": [{"resource": {"attributes": [{"key": "faultlib.phase",
                                                               "value": {"stringValue": phase}}]},
                                 "scopeMetrics": [{"metrics": metrics}]}]}


def _gauge(name, value, attrs=()):
    return {"name": name, "gauge": {"dataPoints": [{"asDouble": value, "timeUnixNano": "5",
                                                    "attributes": [{"key": k, "value": {"stringValue": v}}
                                                                   for k, v in attrs]}]}}


def _write_lines(path, lines):
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else json.dumps(line).encode())
            fh.write(b"\n")


def _lines(problems, file):
    return sorted(p.line for p in problems if p.file == file)


def test_malformed_findings_are_skipped_and_named_by_line(tmp_path):
    no_severity = {"phase": "faulted", "finding": {"detector": "x", "kind": "x", "message": "m", "location": {}, "evidence": {}}}
    bad_location = {"phase": "faulted", "finding": {**GOOD_FINDING["finding"], "location": {"planet": "mars"}}}
    lone_surrogate = b'{"phase": "faulted", "finding": {"detector": "x", "kind": "x", "severity": "info", "message": "\\udcff", ' \
                     b'"location": {}, "evidence": {}}}'
    _write_lines(tmp_path / layout.FINDINGS, [
        GOOD_FINDING,                       # 1 ok
        no_severity,                        # 2 a finding without severity
        ["phase", "faulted"],               # 3 a JSON list
        b"\xff\xfe not utf-8",              # 4 non-UTF-8 bytes
        {"phase": "neither", "finding": GOOD_FINDING["finding"]},  # 5 unknown phase
        bad_location,                       # 6 a location key the schema does not know
        b'{"phase": "faulted", "finding": {"detector": "x", "kind": "x", "severity": "info", "message": "m", '
        b'"location": {}, "evidence": {"v": NaN}}}',              # 7 NaN
        lone_surrogate,                     # 8 text that is not Unicode
        GOOD_FINDING,                       # 9 ok
    ])
    problems: list[EvidenceProblem] = []
    found = read_findings(tmp_path, problems)
    assert [f.message for f in found["faulted"]] == ["m", "m"]
    assert _lines(problems, layout.FINDINGS) == [2, 3, 4, 5, 6, 7, 8]
    by_line = {p.line: p.message for p in problems}
    assert "severity" in by_line[2] and "not valid UTF-8" in by_line[4] and "neither" in by_line[5]
    assert all(p.severity is Severity.ERROR for p in problems)
    finding = problems[0].to_finding()
    assert finding.detector == "faultlib.runner" and finding.location == {"file": "findings.jsonl", "line": 2}


def test_every_otlp_file_survives_hostile_lines(tmp_path):
    _write_lines(tmp_path / layout.TRACES, [
        _span_line(),                                     # 1 ok
        ["faultlib.step"],                                # 2 a list mentioning a step
        {"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": []}]}]}]},   # 3 a span without a name
        _span_line(attributes=[{"key": ["k"], "value": {}}]),                      # 4 an unhashable key
        _span_line(startTimeUnixNano="soon"),             # 5 a time that is not a number
        {"resourceSpans": "everything"},                  # 6 the wrong type
        _span_line(attributes=[{"key": "x", "value": "plain string"}]),            # 7 AnyValue not an object
        {"unrelated": 1},                                 # 8 not a trace request at all
    ])
    _write_lines(tmp_path / layout.LOGS, [{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": 5}]}]}]},
                                          b"{{{", {"resourceLogs": [{"scopeLogs": [{"logRecords": [
                                              {"body": {"stringValue": "hi"}, "timeUnixNano": "3"}]}]}]}])
    _write_lines(tmp_path / layout.METRICS, [_metric_line([{"name": "m", "gauge": {"dataPoints": [{"asDouble": "x"}]}}]),
                                             _metric_line([_gauge("ok_metric", 2.0)])])
    (tmp_path / layout.RUN).write_text("[1, 2, 3]")  # a hostile run.json
    evidence = read_run(tmp_path)
    assert [s.name for s in evidence.faulted.spans] == ["train.step"]
    assert evidence.faulted.metric("ok_metric") == 2.0
    assert _lines(evidence.problems, layout.TRACES) == [2, 3, 4, 5, 6, 7, 8]
    assert _lines(evidence.problems, layout.LOGS) == [1, 2]
    assert _lines(evidence.problems, layout.METRICS) == [1]
    assert [p.file for p in evidence.problems if p.line is None] == [layout.RUN]
    assert evidence.faulted.status == "skipped"


def test_torn_last_line_is_a_warning_other_bad_lines_are_errors(tmp_path):
    with open(tmp_path / layout.TRACES, "wb") as fh:
        fh.write(json.dumps(_span_line()).encode() + b"\n{not json}\n" + json.dumps(_span_line()).encode()[:40])
    problems = read_run(tmp_path).problems
    assert [(p.line, p.severity) for p in problems] == [(2, Severity.ERROR), (3, Severity.WARNING)]
    assert "torn last line" in problems[1].message


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_unsafe_evidence_files_are_problems_not_hangs(tmp_path, kind):
    target = tmp_path / "outside.jsonl"
    _write_lines(target, [GOOD_FINDING])
    path = tmp_path / "run" / layout.FINDINGS
    path.parent.mkdir()
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)  # opening it for reading would block forever
    else:
        path.mkdir()
    evidence = read_run(tmp_path / "run")
    assert evidence.faulted.findings == []
    assert [(p.file, p.line) for p in evidence.problems] == [(layout.FINDINGS, None)]


def test_exposition_sanitises_names_and_skips_what_it_cannot_expose(tmp_path):
    histogram = {"name": "bad_hist", "histogram": {"dataPoints": [
        {"sum": 3.0, "count": "2", "bucketCounts": ["1"], "explicitBounds": [1.0, 2.0], "timeUnixNano": "5"}]}}
    _write_lines(tmp_path / layout.METRICS, [
        _metric_line([_gauge("http.server.duration", 1.5, [("http.route", "/a")]),  # dots: sanitised
                      _gauge("http.server.duration", 2.5, [("user-id", "7")]),      # another label set
                      _gauge("9lives", 1.0),                                       # leading digit
                      _gauge("clash", 1.0, [("phase", "x")]),                      # collides with phase
                      {"name": "kinds", "sum": {"isMonotonic": True, "dataPoints": [{"asInt": "1"}]}},
                      histogram]),
        _metric_line([_gauge("kinds", 4.0)]),                                      # a second kind
        ["not", "metrics"],
    ])
    problems: list[EvidenceProblem] = []
    text = exposition(tmp_path / layout.METRICS, problems).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    samples = sorted((s.labels.get("http_route", ""), s.labels.get("user_id", ""), s.value)
                     for s in families["http_server_duration"].samples)
    assert samples == [("", "7", 2.5), ("/a", "", 1.5)]
    assert "_9lives" in families and "kinds" in families and "clash" not in families
    messages = " | ".join(p.message for p in problems)
    assert "collides with label 'phase'" in messages and "bucket counts" in messages and "clashes" in messages
    assert [p.line for p in problems if p.line is not None] == [3]
