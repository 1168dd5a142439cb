"""metrics.jsonl as a time series: periodic, window-change, flush and close snapshots from the real
OpenTelemetry SDK, written whole from several threads, never by a forked child; every reader
counts a cumulative series once."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from faultlib.evidence import layout, read_run
from faultlib.evidence.prom import exposition
from faultlib.evidence.reader import iter_metric_points
from faultlib.evidence.recorder import Recorder


def _lines(run_dir):
    return [json.loads(line) for line in (run_dir / layout.METRICS).read_text().splitlines()]


def _times(run_dir):
    return [p.time_ns for _, p in iter_metric_points(run_dir / layout.METRICS)]


def test_snapshots_are_periodic_and_in_time_order(tmp_path, monkeypatch):
    monkeypatch.setattr("faultlib.evidence.recorder.METRICS_INTERVAL_MS", 50)
    rec = Recorder(tmp_path, service="tiny", phase="control", run_id="r1")
    rec.snapshot()  # no metric yet: nothing written
    steps = rec.counter("faultlib_tiny_steps_total")
    for _ in range(6):
        steps.add(1)
        time.sleep(0.05)
    rec.close()
    rec.snapshot()  # after close: nothing more
    lines = _lines(tmp_path)
    assert len(lines) >= 4, "periodic snapshots every 50 ms and one at close"
    values = [p.value for _, p in iter_metric_points(tmp_path / layout.METRICS)]
    assert values == sorted(values) and values[-1] == 6, "cumulative totals"
    assert _times(tmp_path) == sorted(_times(tmp_path))


def test_flush_and_window_changes_write_a_snapshot_at_once(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="faulted", run_id="r1")
    steps = rec.counter("faultlib_tiny_steps_total")
    rec.window = "before"
    steps.add(2)
    rec.window = "before"  # unchanged: no snapshot
    assert not (tmp_path / layout.METRICS).read_text()
    rec.window = "during"
    assert [(p.attributes, p.value) for _, p in iter_metric_points(tmp_path / layout.METRICS)] == [
        ({"window": "before"}, 2)]
    steps.add(1)
    rec.flush()  # what record_fault does before a kill
    assert len(_lines(tmp_path)) == 2
    rec.close()
    assert len(_lines(tmp_path)) == 3


def test_snapshots_from_many_threads_are_whole_lines_in_time_order(tmp_path, monkeypatch):
    monkeypatch.setattr("faultlib.evidence.recorder.METRICS_INTERVAL_MS", 5)
    rec = Recorder(tmp_path, service="tiny", phase="faulted", run_id="r1")
    counter, latency = rec.counter("faultlib_tiny_requests_total"), rec.histogram("faultlib_tiny_latency_ms")
    stop = threading.Event()

    def work(worker: int) -> None:
        while not stop.is_set():
            counter.add(1, worker=str(worker))
            latency.record(float(worker), worker=str(worker))
            time.sleep(0.0005)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(3)]
    for thread in threads:
        thread.start()
    try:
        for i in range(60):  # window changes race the periodic reader and the workers
            rec.window = ("before", "during", "after")[i % 3]
            rec.snapshot()
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    rec.close()
    problems: list = []
    points = list(iter_metric_points(tmp_path / layout.METRICS, problems))
    assert problems == [] and len(_lines(tmp_path)) >= 60
    line_times = [int(line["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["sum"]["dataPoints"][0]["timeUnixNano"])
                  for line in _lines(tmp_path)]
    assert line_times == sorted(line_times)
    evidence = read_run(tmp_path, {})
    total = evidence.faulted.metric("faultlib_tiny_requests_total")
    observed = sum(p.extra["count"] for p in evidence.faulted.metrics if p.name == "faultlib_tiny_latency_ms")
    assert total == observed > 0 and len(points) > len(evidence.faulted.metrics)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")
def test_a_forked_child_writes_no_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr("faultlib.evidence.recorder.METRICS_INTERVAL_MS", 20)
    rec = Recorder(tmp_path, service="tiny", phase="control", run_id="r1")
    steps = rec.counter("faultlib_tiny_steps_total")
    steps.add(1)
    pid = os.fork()
    if pid == 0:  # a DataLoader worker, say: its copy of the reader thread runs, its counts differ
        try:
            steps.add(1000)
            time.sleep(0.3)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    rec.close()
    assert {p.value for _, p in iter_metric_points(tmp_path / layout.METRICS)} == {1}


def _many_snapshots(run_dir):
    rec = Recorder(run_dir, service="tiny", phase="faulted", run_id="r1")
    steps = rec.counter("faultlib_tiny_steps_total", "steps")
    latency = rec.histogram("faultlib_tiny_latency_ms", "latency")
    for i in range(10):
        rec.window = "before" if i < 3 else ("during" if i < 6 else "after")
        steps.add(1)
        latency.record(4.0)
        rec.snapshot()
    rec.close()


def test_readers_count_each_series_once(tmp_path, monkeypatch):
    # only the explicit snapshots: the periodic reader (every 1 s) also fired once when a loaded machine took
    # over a second for the ten snapshots (14 lines, not 13)
    monkeypatch.setattr("faultlib.evidence.recorder.METRICS_INTERVAL_MS", 600_000)
    _many_snapshots(tmp_path)
    evidence = read_run(tmp_path, {})
    faulted = evidence.faulted
    assert len(_lines(tmp_path)) == 13  # 10 snapshots, 2 window changes, close
    assert len(faulted.metrics) == 6 and len(faulted.metric_history) > 30  # latest points vs every snapshot
    assert faulted.metric("faultlib_tiny_steps_total") == 10
    assert faulted.metric("faultlib_tiny_steps_total", window="during") == 3
    assert sum(p.extra["count"] for p in faulted.metrics if p.name == "faultlib_tiny_latency_ms") == 10
    ((attrs, points),) = faulted.metric_series("faultlib_tiny_steps_total", window="after").items()
    assert attrs == (("window", "after"),) and [v for _, v in points] == [1, 2, 3, 4, 4]
    assert [t for t, _ in points] == sorted(t for t, _ in points) and points[0][0] > 1e9  # seconds
    assert faulted.metric_series("faultlib_tiny_steps_total", window="nope") == {}
    text = exposition(tmp_path / layout.METRICS).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    totals = {s.labels["window"]: s.value for s in families["faultlib_tiny_steps"].samples if s.name.endswith("_total")}
    assert totals == {"before": 3, "during": 3, "after": 4}
    inf = [s for s in families["faultlib_tiny_latency_ms"].samples if s.labels.get("le") == "+Inf"]
    assert sum(s.value for s in inf) == 10


def test_a_restarted_phase_takes_its_values_from_the_last_attempt(tmp_path):
    """Attempt 1 is killed at step 130 (its periodic snapshots stay), attempt 2 resumes and finishes."""
    from faultlib.evidence.openmetrics import openmetrics

    for attempt, (window, steps, checkpoint) in enumerate((("before", 130, 125), ("after", 70, 200)), start=1):
        rec = Recorder(tmp_path, service="tiny", phase="faulted", run_id="r1", attempt=attempt)
        rec.window = window
        rec.counter("faultlib_tiny_steps_total").add(steps)
        rec.gauge("faultlib_tiny_checkpoint_step").set(checkpoint)
        rec.close()
        time.sleep(0.005)
    faulted = read_run(tmp_path, {}).faulted
    assert faulted.metric("faultlib_tiny_checkpoint_step") == 200  # not 125 + 200
    assert faulted.metric("faultlib_tiny_steps_total") == 70 and {p.attempt for p in faulted.metrics} == {2}
    assert {p.attempt for p in faulted.metric_history} == {1, 2}
    prom = {s.labels["window"]: s.value for f in text_string_to_metric_families(exposition(tmp_path / layout.METRICS)
                                                                                .decode())
            for s in f.samples if s.name == "faultlib_tiny_checkpoint_step"}
    assert prom == {"after": 200}
    om = openmetrics(iter_metric_points(tmp_path / layout.METRICS)).decode()
    assert 'faultlib_tiny_steps_total{phase="faulted",window="before"} 130.0' in om  # both attempts, over time
    assert 'faultlib_tiny_steps_total{phase="faulted",window="after"} 70.0' in om


def _values(run_dir, name):
    """The value of ``name`` in each snapshot, in time order (one series)."""
    return [p.value for _, p in iter_metric_points(run_dir / layout.METRICS) if p.name == name]


def test_a_watermark_shows_a_dip_shorter_than_the_snapshot_interval(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="faulted", run_id="r1")
    scale = rec.gauge("faultlib_tiny_loss_scale")
    low = rec.watermark("faultlib_tiny_loss_scale_low", keep="min")
    high = rec.watermark("faultlib_tiny_step_ms_high", keep="max")
    for value in (65536.0, 32768.0, 16384.0, 65536.0):  # GradScaler halving twice, then a breaker reset
        scale.set(value)
        low.observe(value)
    high.observe(3.0)
    high.observe(250.0)
    high.observe(4.0)
    rec.snapshot()
    low.observe(65536.0)  # a new interval: the dip is not carried over
    high.observe(5.0)
    rec.close()
    assert _values(tmp_path, "faultlib_tiny_loss_scale") == [65536.0, 65536.0], "a plain gauge misses the dip"
    assert _values(tmp_path, "faultlib_tiny_loss_scale_low") == [16384.0, 65536.0]
    assert _values(tmp_path, "faultlib_tiny_step_ms_high") == [250.0, 5.0]


def test_a_watermark_keeps_min_or_max_and_one_name_one_kind(tmp_path):
    rec = Recorder(tmp_path, service="tiny", phase="control", run_id="r1")
    try:
        with pytest.raises(ValueError, match="'min' or 'max'"):
            rec.watermark("faultlib_tiny_x", keep="mean")
        rec.gauge("faultlib_tiny_y")
        with pytest.raises(ValueError, match="already a gauge"):
            rec.watermark("faultlib_tiny_y")
        assert rec.watermark("faultlib_tiny_z") is rec.watermark("faultlib_tiny_z")
    finally:
        rec.close()
