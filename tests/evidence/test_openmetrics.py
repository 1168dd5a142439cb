"""metrics.om: every snapshot as timestamped OpenMetrics samples, from real Recorder output and from
hand-written OTLP/JSON lines; what cannot be written is a problem, never an exception."""

from __future__ import annotations

import json
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from faultlib.archive.manifest import verify
from faultlib.evidence import layout, read_run
from faultlib.evidence.finish import finish_run, write_metrics_om
from faultlib.evidence.openmetrics import MAX_MS, openmetrics, seconds, write_openmetrics
from faultlib.evidence.reader import iter_metric_points
from faultlib.evidence.problems import EvidenceProblem
from faultlib.evidence.recorder import Recorder
from faultlib.findings import Severity
from faultlib.record import RunRecord, Verdict
from tests.evidence.omtext import samples, series
from tests.readers.test_fuzz_evidence import lines as fuzz_lines

LABELS = {"case": "unit_case", "run_id": "r1"}
MS = 1_000_000  # ns


def _record(run_dir, phase, windows, *, pause_s=0.0):
    rec = Recorder(run_dir, service="unit_case", phase=phase, run_id="r1")
    steps = rec.counter("faultlib_unit_steps_total", "unit steps")
    scale = rec.gauge("faultlib_unit_scale", "a gauge")
    latency = rec.histogram("faultlib_unit_latency_ms", "a histogram")
    for i, window in enumerate(windows):
        rec.window = window
        steps.add(1)
        scale.set(2.0 ** i)
        latency.record(3.0 + i)
        time.sleep(pause_s)
    rec.close()


def _line(metrics, phase="faulted"):
    return json.dumps({"resourceMetrics": [{"resource": {"attributes": [
        {"key": "faultlib.phase", "value": {"stringValue": phase}}]}, "scopeMetrics": [{"metrics": metrics}]}]})


def _counter(value, time_ms, start_ms=None, name="faultlib_c_total", **attrs):
    point = {"asInt": str(value), "timeUnixNano": str(time_ms * MS),
             "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]}
    if start_ms is not None:
        point["startTimeUnixNano"] = str(start_ms * MS)
    return {"name": name, "sum": {"isMonotonic": True, "aggregationTemporality": 2, "dataPoints": [point]}}


def _histogram(total, counts, time_ms, start_ms, name="faultlib_h_ms"):
    return {"name": name, "histogram": {"aggregationTemporality": 2, "dataPoints": [{
        "startTimeUnixNano": str(start_ms * MS), "timeUnixNano": str(time_ms * MS), "sum": total,
        "count": str(sum(counts)), "bucketCounts": [str(c) for c in counts], "explicitBounds": [1.0, 10.0]}]}}


def _om(tmp_path, *lines):
    (tmp_path / layout.METRICS).write_text("".join(line + "\n" for line in lines))
    problems: list[EvidenceProblem] = []
    path = write_openmetrics(tmp_path, problems, labels=LABELS)
    return path.read_text(), problems


def test_every_snapshot_of_both_phases_is_a_timestamped_sample(tmp_path, monkeypatch):
    monkeypatch.setattr("faultlib.evidence.recorder.METRICS_INTERVAL_MS", 40)
    _record(tmp_path, "control", ["none"] * 4, pause_s=0.03)
    _record(tmp_path, "faulted", ["before", "before", "during", "after"], pause_s=0.03)
    problems: list[EvidenceProblem] = []
    text = write_openmetrics(tmp_path, problems, labels=LABELS).read_text()
    assert problems == [] and text.endswith("\n# EOF\n") and text.count("# EOF") == 1
    assert "# TYPE faultlib_unit_steps counter" in text and "# TYPE faultlib_unit_latency_ms histogram" in text
    parsed = samples(text)  # every line through prometheus_client's OpenMetrics parser
    assert {s.name for s in parsed} >= {"faultlib_unit_steps_total", "faultlib_unit_scale", "faultlib_unit_latency_ms_bucket",
                                        "faultlib_unit_latency_ms_count", "faultlib_unit_latency_ms_sum"}
    assert all(s.labels["case"] == "unit_case" and s.labels["run_id"] == "r1" for s in parsed)
    assert {(s.labels["phase"], s.labels["window"]) for s in parsed} == {
        ("control", "none"), ("faulted", "before"), ("faulted", "during"), ("faulted", "after")}
    lines = series(text)
    for head, points in lines.items():  # one series' samples: contiguous, strictly increasing time
        stamps = [t for t, _ in points]
        assert stamps == sorted(set(stamps)), head
    steps = lines['faultlib_unit_steps_total{case="unit_case",phase="control",run_id="r1",window="none"}']
    assert len(steps) >= 3, "periodic snapshots, not just the last one"
    assert steps[-1][1] == 4 and [v for _, v in steps] == sorted(v for _, v in steps)
    # the same times as the snapshots in metrics.jsonl, to the millisecond
    times = {p.time_ns // MS for phase, p in iter_metric_points(tmp_path / layout.METRICS) if phase == "control"}
    assert {round(t * 1000) for t, _ in steps[1:]} <= times


def test_a_counter_starts_at_zero_and_a_restart_starts_again(tmp_path):
    text, problems = _om(tmp_path,
                         _line([_counter(8, 5000, 1000), _histogram(12.0, [1, 1, 0], 5000, 1000)]),
                         _line([_counter(8, 6000, 1000), _histogram(12.0, [1, 1, 0], 6000, 1000)]),
                         _line([_counter(2, 8000, 7000)]))  # a restarted process: new start time
    assert problems == []
    lines = series(text)
    assert lines['faultlib_c_total{case="unit_case",phase="faulted",run_id="r1"}'] == [
        (1.0, 0.0), (5.0, 8.0), (6.0, 8.0), (7.0, 0.0), (8.0, 2.0)]
    assert lines['faultlib_h_ms_count{case="unit_case",phase="faulted",run_id="r1"}'] == [(1.0, 0.0), (5.0, 2.0), (6.0, 2.0)]
    assert lines['faultlib_h_ms_bucket{case="unit_case",le="+Inf",phase="faulted",run_id="r1"}'][0] == (1.0, 0.0)
    assert lines['faultlib_h_ms_sum{case="unit_case",phase="faulted",run_id="r1"}'][:2] == [(1.0, 0.0), (5.0, 12.0)]
    samples(text)


def test_no_zero_sample_for_gauges_or_a_start_in_the_same_millisecond(tmp_path):
    gauge = {"name": "faultlib_g", "gauge": {"dataPoints": [{"asDouble": 3.5, "timeUnixNano": str(5000 * MS)}]}}
    text, problems = _om(tmp_path, _line([gauge, _counter(1, 5000, 5000)]))
    assert problems == []
    assert series(text) == {'faultlib_g{case="unit_case",phase="faulted",run_id="r1"}': [(5.0, 3.5)],
                            'faultlib_c_total{case="unit_case",phase="faulted",run_id="r1"}': [(5.0, 1.0)]}


def test_one_sample_per_millisecond_the_later_snapshot_wins(tmp_path):
    text, _ = _om(tmp_path, _line([_counter(1, 5000, 1000)]), _line([_counter(3, 5000, 1000)]),
                  _line([_counter(4, 5001, 1000)]))
    assert series(text)['faultlib_c_total{case="unit_case",phase="faulted",run_id="r1"}'] == [
        (1.0, 0.0), (5.0, 3.0), (5.001, 4.0)]


def test_a_fault_window_shorter_than_the_period_keeps_its_boundary_values(tmp_path):
    rec = Recorder(tmp_path, service="unit_case", phase="faulted", run_id="r1")
    steps = rec.counter("faultlib_unit_steps_total", "unit steps")
    rec.window = "before"
    steps.add(5)
    started = time.monotonic()
    rec.window = "during"
    for _ in range(4):  # an 80 ms fault window, far shorter than the 1 s period
        steps.add(1)
        time.sleep(0.02)
    rec.window = "after"
    during_s = time.monotonic() - started
    steps.add(1)
    time.sleep(0.05)
    rec.close()
    assert during_s < 0.5
    evidence = read_run(tmp_path, {})
    during = evidence.faulted.metric_series("faultlib_unit_steps_total", window="during")
    ((attrs, points),) = during.items()
    assert dict(attrs) == {"window": "during"} and points[0][1] == 4  # at the during -> after boundary
    before = evidence.faulted.metric_series("faultlib_unit_steps_total", window="before")
    assert [v for _, v in next(iter(before.values()))] == [5, 5, 5]  # the boundaries and close
    problems: list[EvidenceProblem] = []
    om = write_openmetrics(tmp_path, problems, labels=LABELS).read_text()
    during_om = series(om)['faultlib_unit_steps_total{case="unit_case",phase="faulted",run_id="r1",window="during"}']
    assert during_om[0][1] == 0 and during_om[1][1] == 4  # rate() over the window sees the increase of 4
    assert during_om[1][0] - during_om[0][0] < 0.5


def test_what_cannot_be_written_is_a_problem_not_an_exception(tmp_path):
    hist_negative = _histogram(-4.0, [2, 0, 0], 5000, 1000, name="faultlib_delta")
    bad_buckets = _histogram(1.0, [1], 5000, 1000, name="faultlib_bad")
    negative = _counter(-1, 5000, 1000, name="faultlib_neg_total")
    negative["sum"]["dataPoints"][0]["asInt"] = "-1"
    text, problems = _om(
        tmp_path,
        _line([hist_negative, bad_buckets, negative, _counter(1, 0, name="faultlib_epoch_total"),
               _counter(1, 5000, 1000, name="faultlib_le_ms", le="x")]),
        _line([_counter(2, MAX_MS + 1, 1000, name="faultlib_late_total")]),
        '{"resourceMetrics": "no"}', "not json")
    messages = {p.message: p for p in problems}
    joined = " | ".join(messages)
    for expected in ("bucket counts for 2 bounds", "counter 'faultlib_neg_total'", "between the epoch and the year 9999",
                     "not an OTLP/JSON line", "negative or NaN sum"):
        assert expected in joined, expected
    assert [p.line for p in problems if p.line is not None] == [3, 4]
    warning = next(p for p in problems if "negative or NaN sum" in p.message)
    assert warning.severity is Severity.WARNING and warning.file == layout.METRICS
    assert "faultlib_delta_bucket" in text and "faultlib_delta_sum" not in text and "faultlib_delta_count" not in text
    assert "faultlib_bad" not in text and "faultlib_neg" not in text and "faultlib_epoch" not in text
    assert "faultlib_le_ms" in text  # a counter may have an attribute le; a histogram may not
    samples(text)


def test_a_histogram_attribute_named_le_is_refused(tmp_path):
    hist = _histogram(1.0, [1, 0, 0], 5000, 1000)
    hist["histogram"]["dataPoints"][0]["attributes"] = [{"key": "le", "value": {"stringValue": "x"}}]
    text, problems = _om(tmp_path, _line([hist]))
    assert "collides with label 'le'" in problems[0].message and "faultlib_h_ms" not in text


def test_timestamps_read_back_as_the_exact_millisecond():
    for ms in (1, 999, 1_796_083_872_284, 1_796_083_872_285, MAX_MS - 1, *range(1_764_500_000_000, 1_764_500_003_000)):
        value = seconds(ms)
        assert int(float(repr(value)) * 1000) == ms  # what Prometheus' parser does with the text


FUZZ = settings(max_examples=80, deadline=3000, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(metrics=st.lists(fuzz_lines, max_size=5))
def test_any_metrics_jsonl_gives_valid_text_or_problems(tmp_path_factory, metrics):
    run_dir = tmp_path_factory.mktemp("om")
    (run_dir / layout.METRICS).write_bytes(b"\n".join(metrics))
    problems: list[EvidenceProblem] = []
    text = write_openmetrics(run_dir, problems, labels=LABELS).read_text()
    assert text.endswith("# EOF\n") and all(isinstance(p, EvidenceProblem) for p in problems)
    for points in series(text).values():
        stamps = [t for t, _ in points]
        assert stamps == sorted(set(stamps))


@FUZZ
@given(values=st.lists(st.tuples(st.integers(1, 10**13), st.integers(0, 10**6), st.integers(0, 100),
                                 st.sampled_from(["control", "faulted"])), max_size=12))
def test_recorded_shapes_in_any_order_parse_back(tmp_path_factory, values):
    """Counter points at any times, in any order, duplicates included: valid OpenMetrics every time."""
    run_dir = tmp_path_factory.mktemp("om")
    lines = [_line([_counter(v, t, max(1, t - d))], phase=phase) for t, v, d, phase in values]
    (run_dir / layout.METRICS).write_text("".join(line + "\n" for line in lines))
    problems: list[EvidenceProblem] = []
    text = openmetrics(list(iter_metric_points(run_dir / layout.METRICS, problems)), problems, labels=LABELS).decode()
    assert problems == []
    parsed = [s for f in text_string_to_metric_families(text) for s in f.samples]  # the whole text at once
    assert len(parsed) >= len({(t, phase) for t, _, _, phase in values})
    assert all(s.name == "faultlib_c_total" and s.timestamp is not None for s in parsed)
    for points in series(text).values():
        stamps = [t for t, _ in points]
        assert stamps == sorted(set(stamps))


def _finish(run_dir, *, runner_wrote: bool):
    record = RunRecord(run_id="r1", case={"id": "unit_case", "version": "0.1.0", "path": "x"}, backend="local",
                       started_at="2026-11-30T00:00:00+00:00", seed=0, fingerprint={}, verdict=Verdict.PASSED)
    if runner_wrote:
        write_metrics_om(run_dir, record, case_id="unit_case")  # the runner, when the phases end
    return record, finish_run(run_dir, record, case_id="unit_case")


def test_finish_keeps_the_runners_metrics_om_and_lists_it(tmp_path):
    _record(tmp_path, "faulted", ["before", "during", "after"])
    record, _ = _finish(tmp_path, runner_wrote=True)
    assert record.findings == [] and record.verdict.value == "passed"
    listed = {a["name"] for a in json.loads((tmp_path / layout.MANIFEST).read_text())["files"]}
    assert layout.METRICS_OM in listed and not any(n.startswith(layout.METRICS_OM + ".") for n in listed)
    assert verify(tmp_path) == []
    assert 'window="during"' in (tmp_path / layout.METRICS_OM).read_text()


def test_finish_replaces_a_metrics_om_the_runner_did_not_write(tmp_path):
    """A run interrupted before the runner wrote metrics.om: a repro's forgery is moved aside, not archived as ours."""
    _record(tmp_path, "faulted", ["before", "during", "after"])
    (tmp_path / layout.METRICS_OM).write_text('faultlib_forged_total 1e9\n# EOF\n')
    record, problems = _finish(tmp_path, runner_wrote=False)
    (moved,) = [p for p in problems if p.kind == "moved_aside"]
    assert moved.file == layout.METRICS_OM and "not written by the runner" in moved.message
    assert record.verdict.value == "error"
    text = (tmp_path / layout.METRICS_OM).read_text()
    assert "forged" not in text and "faultlib_unit_steps_total" in text
    assert verify(tmp_path) == []
