"""Spans are written in batches (one OTLP request per line), and at once when a fault is recorded."""

from __future__ import annotations

import json

from faultlib.evidence import layout
from faultlib.evidence.reader import iter_spans
from faultlib.evidence.recorder import MS_BUCKETS, Recorder


def test_many_spans_share_a_few_lines_and_all_read_back(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="control", run_id="r1")
    for step in range(300):
        with rec.span("train.step", **{"faultlib.step": step}):
            pass
    rec.close()
    lines = (tmp_path / layout.TRACES).read_text().splitlines()
    assert len(lines) <= 10
    for line in lines:  # one resource block per line, each holding many spans
        assert len(json.loads(line)["resourceSpans"]) == 1
    steps = [span.attributes["faultlib.step"] for _, span in iter_spans(tmp_path / layout.TRACES)]
    assert sorted(steps) == list(range(300))


def test_flush_writes_spans_before_close(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="faulted", run_id="r1")
    with rec.span("train.step", **{"faultlib.step": 0}):
        pass
    rec.flush()  # what record_fault does before a kill
    assert [s.name for _, s in iter_spans(tmp_path / layout.TRACES)] == ["train.step"]
    rec.close()


def test_latency_histograms_have_millisecond_buckets(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="control", run_id="r1")
    hist = rec.histogram("faultlib_latency_ms", "latency")
    for value in (0.5, 3, 40, 400):
        hist.record(value)
    rec.close()
    data = json.loads((tmp_path / layout.METRICS).read_text().splitlines()[0])
    point = data["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["histogram"]["dataPoints"][0]
    assert [float(b) for b in point["explicitBounds"]] == list(MS_BUCKETS) and 0.0 not in point["explicitBounds"]
