"""Assertion suite of covariate_shift; the `evidence` fixture comes from faultlib.cases.fixture.

Both phases serve the same 60 batches (same seed), so each faulted step has a control twin.
Windows of the monitor (8 batches of 32): steps 20..27 fill with shifted rows, 28..39 hold only
shifted rows, 40..47 drain, 48..59 hold none.
"""

import statistics
from pathlib import Path

from faultlib.readers import load_yaml_file

CASE = load_yaml_file(Path(__file__).parent / "case.yaml").data
PARAMS = CASE["repro"]["params"]
SHIMS = [s["params"] for s in CASE["inject"]["local"]]
START = SHIMS[0]["start_step"]
STOP = START + SHIMS[0]["steps"]
WINDOW_STEPS = PARAMS["window"] // PARAMS["batch_size"]
FEATURES = ["mean radius", "mean texture", "mean perimeter", "mean area", "mean smoothness", "mean compactness",
            "mean concavity", "mean concave points", "mean symmetry", "mean fractal dimension", "radius error",
            "texture error", "perimeter error", "area error", "smoothness error", "compactness error",
            "concavity error", "concave points error", "symmetry error", "fractal dimension error", "worst radius",
            "worst texture", "worst perimeter", "worst area", "worst smoothness", "worst compactness",
            "worst concavity", "worst concave points", "worst symmetry", "worst fractal dimension"]
SHIFTED = {FEATURES[c] for s in SHIMS for c in s["columns"]}
MAIN = {f"{part} {what}" for part in ("mean", "worst") for what in ("radius", "perimeter", "area")}
LEVELS = ["none", "record", "alert", "freeze"]


def _steps(phase, lo=0, hi=10**9):
    return [s for s in phase.steps("serve.batch") if lo <= s.attributes["faultlib.step"] < hi]


def _mean(spans, key):
    return statistics.mean(s.attributes[key] for s in spans)


def _drifted(span):
    return {c for c in span.attributes.get("drift.drifted", "").split(",") if c}


def test_control_raises_no_finding(evidence):
    assert evidence.control.findings == []
    spans = _steps(evidence.control)
    assert len(spans) == PARAMS["steps"]
    assert {s.attributes.get("drift.response", "none") for s in spans} == {"none"}
    assert not any(s.attributes.get("drift.recalibrated") for s in spans)
    assert _mean(spans, "accuracy") >= 0.93
    wrong = {name: evidence.control.metric("faultlib_predictions_total", model=name, outcome="wrong")
             for name in ("served", "unmitigated")}
    assert wrong["served"] == wrong["unmitigated"]        # nothing recalibrated: the two models agree


def test_faulted_run_is_silent_before_the_fault(evidence):
    assert not [f for f in evidence.faulted.findings if f.location["step"] < START]
    before, twin = _steps(evidence.faulted, 0, START), _steps(evidence.control, 0, START)
    assert {s.attributes["faultlib.fault.window"] for s in before} == {"before"}
    assert [s.attributes["accuracy"] for s in before] == [s.attributes["accuracy"] for s in twin]


def test_monitor_names_the_shifted_columns_within_one_window(evidence):
    findings = [f for f in evidence.faulted.findings if f.kind == "column_drift"]
    assert findings and {f.detector for f in findings} == {"drift_monitor"}
    first = min(f.location["step"] for f in findings)
    assert START <= first < START + WINDOW_STEPS, first
    named = {f.location["column_name"] for f in findings}
    assert named <= SHIFTED, named - SHIFTED
    for span in _steps(evidence.faulted, START, STOP + WINDOW_STEPS):
        assert _drifted(span) <= SHIFTED
    full = _steps(evidence.faulted, START + WINDOW_STEPS, STOP)  # windows holding only shifted rows
    assert all(MAIN <= _drifted(s) and len(_drifted(s)) >= 6 for s in full)


def test_response_escalates_to_freeze(evidence):
    filling = [LEVELS.index(s.attributes["drift.response"]) for s in _steps(evidence.faulted, START,
                                                                            START + WINDOW_STEPS)]
    assert filling == sorted(filling), f"{filling}"  # never falls while shifted rows fill the window
    assert filling[-1] == LEVELS.index("freeze")
    full = _steps(evidence.faulted, START + WINDOW_STEPS, STOP)
    assert {s.attributes["drift.response"] for s in full} == {"freeze"}
    assert all(set(s.attributes["drift.recalibrated"].split(",")) == _drifted(s) for s in full)
    severities = {f.severity.value for f in evidence.faulted.findings if f.kind == "column_drift"}
    assert "error" in severities                       # freeze is reported at severity error


def test_shift_costs_accuracy_and_recalibration_wins_it_back(evidence):
    full = _steps(evidence.faulted, START + WINDOW_STEPS, STOP)
    control = _mean(_steps(evidence.control, START + WINDOW_STEPS, STOP), "accuracy")
    assert _mean(full, "unmitigated_accuracy") <= control - 0.05
    assert _mean(full, "accuracy") >= control - 0.03
    during = {"model": "unmitigated", "window": "during"}
    wrong = evidence.faulted.metric("faultlib_predictions_total", outcome="wrong", **during)
    assert wrong > evidence.control.metric("faultlib_predictions_total", outcome="wrong", model="unmitigated")


def test_batch_check_with_mmd_agrees(evidence):
    checks = {s.attributes["step"]: s.attributes for s in evidence.faulted.spans_named("drift.batch_check")}
    before = [a for step, a in checks.items() if step < START]
    inside = [a for step, a in checks.items() if START + WINDOW_STEPS - 1 <= step < STOP]
    assert before and inside
    for a in before:
        assert a["drifted"] == "" and a["response"] == "none" and a["mmd.drifted"] is False
    for a in inside:
        drifted = set(a["drifted"].split(","))
        assert MAIN <= drifted <= SHIFTED and a["response"] == "freeze"
        assert a["mmd.drifted"] is True and a["mmd.p_value"] <= 0.01
    for span in evidence.control.spans_named("drift.batch_check"):
        assert span.attributes["drifted"] == "" and span.attributes["mmd.drifted"] is False
    assert (evidence.dumps / "faulted" / "reference.csv").is_file()


def test_monitor_recovers_after_the_fault(evidence):
    clean = _steps(evidence.faulted, STOP + WINDOW_STEPS)
    assert clean and {s.attributes["drift.response"] for s in clean} == {"none"}
    assert not any(s.attributes.get("drift.recalibrated") for s in clean)
    assert not [f for f in evidence.faulted.findings if f.location["step"] >= STOP + WINDOW_STEPS]
    twin = _steps(evidence.control, STOP + WINDOW_STEPS)
    assert [s.attributes["accuracy"] for s in clean] == [s.attributes["accuracy"] for s in twin]
    assert evidence.faulted.summary["final_recalibrated"] == ""


def test_monitor_memory_is_bounded(evidence):
    for phase in (evidence.control, evidence.faulted):
        states = {s.attributes["monitor.state_numbers"] for s in _steps(phase)}
        assert len(states) == 1 and phase.summary["states"] == 1
        held = states.pop()
        assert held < phase.summary["rows_seen"] * len(FEATURES) / 10      # far below the rows it has seen
        assert {s.attributes["monitor.window_rows"] for s in _steps(phase, WINDOW_STEPS)} == {PARAMS["window"]}


def test_declared_metrics_and_spans_are_in_the_evidence(evidence):
    assert evidence.faulted.missing_observability(CASE["observability"]) == []


def test_promql_shows_the_fault(evidence):
    """The fault shows in a real Prometheus over the run\'s metrics.om, and the control stays quiet."""
    assert evidence.promql("drifted_columns", phase="faulted", window="before").max() == 0
    assert evidence.promql("drifted_columns", phase="faulted", window="during").max() > 0
    assert evidence.promql("drifted_columns", phase="control").max() == 0
