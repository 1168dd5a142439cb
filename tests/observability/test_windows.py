"""The time windows of each phase, from the run's spans (OTLP/JSON lines written here with exact times):
the faulted phase's before/during/after from its step spans, the control's from the same step indices,
the run window from the root span, the boundaries (a window reaches the next one's first span; the last
lasts until the phase ends), absent windows, restarts, and unreadable lines."""

from __future__ import annotations

import json

import pytest

from faultlib.evidence import layout
from faultlib.observability.windows import MARGIN_S, RUN_TAIL_S, phase_windows

T0 = 1_800_000_000.0  # seconds since the epoch
MS = 1_000_000  # nanoseconds


def _attr(key, value):
    kind = "intValue" if isinstance(value, int) else "stringValue"
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def _span(name, start_ms, end_ms, base, **attrs):
    origin = int(base * 1e9)
    return {"name": name, "traceId": "ab", "spanId": "cd", "startTimeUnixNano": str(origin + start_ms * MS),
            "endTimeUnixNano": str(origin + end_ms * MS), "attributes": [_attr(k, v) for k, v in attrs.items()]}


def _line(phase, spans):
    return {"resourceSpans": [{"resource": {"attributes": [_attr("faultlib.phase", phase)]},
                               "scopeSpans": [{"spans": spans}]}]}


def _phase(phase, base, windows, *, root=True):
    """Step i runs [10 i, 10 i + 8] ms after ``base``; ``windows[i]`` is its fault window."""
    spans = [_span("train.step", 10 * i, 10 * i + 8, base, **{"faultlib.step": i, "faultlib.fault.window": w})
             for i, w in enumerate(windows)]
    if root:
        spans.append(_span("faultlib.repro", -100, 10 * len(windows) + 100, base))
    return _line(phase, spans)


def _write(run_dir, *lines):
    with open(run_dir / layout.TRACES, "w") as fh:
        for line in lines:
            fh.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


def _by_key(windows):
    return {(w.phase, w.name): w for w in windows}


FAULTED = ["before"] * 4 + ["during"] * 2 + ["after"] * 4


def test_faulted_windows_cover_their_steps_and_end_where_the_next_begins(tmp_path):
    _write(tmp_path, _phase("control", T0, ["none"] * 10), _phase("faulted", T0 + 10, FAULTED))
    w = _by_key(phase_windows(tmp_path))
    base = T0 + 10
    before, during, after = w["faulted", "before"], w["faulted", "during"], w["faulted", "after"]
    assert before.steps == (0, 3) and during.steps == (4, 5) and after.steps == (6, 9)
    assert before.start == pytest.approx(base)
    # the snapshot closing "before" is taken as step 4 starts: the window reaches it
    assert before.end == pytest.approx(base + 0.040 + MARGIN_S)
    assert during.start == pytest.approx(base + 0.040)
    assert during.end == pytest.approx(base + 0.060 + MARGIN_S)
    assert after.start == pytest.approx(base + 0.060)
    run = w["faulted", "run"]
    assert run.steps is None
    assert (run.start, run.end) == (pytest.approx(base - 0.1), pytest.approx(base + 0.2 + RUN_TAIL_S))
    assert after.end == run.end, "the last window lasts until the phase ends (its last snapshot is at exit)"


def test_control_windows_are_the_faulted_step_indices_in_the_control_spans(tmp_path):
    _write(tmp_path, _phase("control", T0, ["none"] * 10), _phase("faulted", T0 + 10, FAULTED))
    windows = phase_windows(tmp_path)
    assert [(w.phase, w.name) for w in windows] == [
        ("control", "before"), ("control", "during"), ("control", "after"), ("control", "run"),
        ("faulted", "before"), ("faulted", "during"), ("faulted", "after"), ("faulted", "run")]
    control = _by_key(windows)["control", "during"]
    assert control.steps == (4, 5)
    assert (control.start, control.end) == (pytest.approx(T0 + 0.040), pytest.approx(T0 + 0.060 + MARGIN_S))


def test_a_window_without_steps_is_absent(tmp_path):
    _write(tmp_path, _phase("control", T0, ["none"] * 6), _phase("faulted", T0 + 10, ["before"] * 4 + ["during"] * 2))
    names = [(w.phase, w.name) for w in phase_windows(tmp_path)]
    assert ("faulted", "after") not in names and ("control", "after") not in names
    assert ("faulted", "during") in names and ("control", "during") in names


def test_a_case_without_step_spans_has_one_run_window_per_phase(tmp_path):
    _write(tmp_path, _line("control", [_span("faultlib.repro", 0, 500, T0), _span("http.get", 10, 20, T0)]),
           _line("faulted", [_span("faultlib.repro", 0, 700, T0 + 5)]))
    windows = phase_windows(tmp_path)
    assert [(w.phase, w.name) for w in windows] == [("control", "run"), ("faulted", "run")]
    assert windows[1].duration_s == pytest.approx(0.7 + RUN_TAIL_S)


def test_a_restarted_phase_spans_all_its_attempts(tmp_path):
    first = _phase("faulted", T0, ["before"] * 3 + ["during"])   # killed at step 3
    second = _phase("faulted", T0 + 1, ["before"] * 3 + ["during"] * 2 + ["after"])  # restarted from step 0
    _write(tmp_path, first, second)
    w = _by_key(phase_windows(tmp_path))
    assert w["faulted", "before"].start == pytest.approx(T0)
    assert w["faulted", "during"].steps == (3, 4)
    assert w["faulted", "run"].start == pytest.approx(T0 - 0.1)
    assert w["faulted", "run"].end == pytest.approx(T0 + 1 + 0.16 + RUN_TAIL_S)


def test_unreadable_lines_are_reported_and_skipped(tmp_path):
    _write(tmp_path, "{not json", json.dumps({"resourceSpans": "nope"}), _phase("faulted", T0, FAULTED))
    problems = []
    windows = phase_windows(tmp_path, problems)
    assert sorted(p.line for p in problems) == [1, 2]
    assert [w.name for w in windows] == ["before", "during", "after", "run"]


def test_no_traces_no_windows(tmp_path):
    assert phase_windows(tmp_path) == []


def test_without_a_root_span_the_last_window_ends_with_its_last_step(tmp_path):
    _write(tmp_path, _phase("faulted", T0, FAULTED, root=False))
    w = _by_key(phase_windows(tmp_path))
    assert ("faulted", "run") not in w
    assert w["faulted", "after"].end == pytest.approx(T0 + 0.098 + MARGIN_S)
