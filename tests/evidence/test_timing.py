"""faultlib.evidence.timing: timing assertions against a reference measured in the same run (the control,
or the faulted run before its fault), and inconclusive instead of a load-dependent verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from faultlib.cases.fixture import _WithoutControl
from faultlib.errors import TimingInconclusive
from faultlib.evidence.reader import PhaseEvidence, RunEvidence, Span
from faultlib.evidence.timing import BEFORE, CONTROL, Reference, Waited, assert_at_most, share, step_reference


def _span(step: int, window: str, **attributes) -> Span:
    attrs = {"faultlib.step": step, "faultlib.fault.window": window, **attributes}
    return Span("serve.request", attrs, 0, 1, 1, (), "t", f"s{step}", "")


def _run(tmp_path, control_latencies, faulted_latencies, *, control=True) -> RunEvidence:
    windows = ["before"] * 4 + ["during"] * 3 + ["after"] * 3
    control_phase = PhaseEvidence("control", exit_code=0 if control else None, status="ok" if control else "skipped",
                                  spans=[_span(i, "none", latency_ms=v) for i, v in enumerate(control_latencies)])
    faulted_phase = PhaseEvidence("faulted", exit_code=0, status="ok",
                                  spans=[_span(i, windows[i], latency_ms=v) for i, v in enumerate(faulted_latencies)])
    return RunEvidence(tmp_path, control_phase, faulted_phase)


FAULTED = [4, 5, 6, 5, 300, 320, 310, 6, 5, 7]


def test_the_reference_is_the_control_when_it_ran(tmp_path):
    run = _run(tmp_path, [3, 4, 5, 4, 30], FAULTED)
    ref = step_reference(run, "serve.request", "latency_ms", what="request latency")
    assert ref.source == CONTROL and ref.values == (3, 4, 5, 4, 30)
    assert ref.median == 4 and ref.ceiling == 30
    assert run.has_control and [p.name for p in run.phases] == ["control", "faulted"]


def test_without_control_the_reference_is_the_faulted_run_before_the_fault(tmp_path):
    run = _WithoutControl(_run(tmp_path, [], FAULTED, control=False))  # what the fixture gives a --no-control run
    ref = step_reference(run, "serve.request", "latency_ms", what="request latency")
    assert ref.source == BEFORE and ref.values == (4, 5, 6, 5)
    assert not run.has_control and [p.name for p in run.phases] == ["faulted"]
    assert "in the faulted run before the fault: median 5 ms, up to 6 ms (4 values)" in ref.describe()


def test_a_function_picks_the_value_and_none_leaves_a_step_out(tmp_path):
    run = _run(tmp_path, [3, 4, 5, 6], FAULTED)
    ref = step_reference(run, "serve.request", lambda a: a["latency_ms"] * 2 if a["faultlib.step"] else None,
                         what="doubled")
    assert ref.values == (8, 10, 12)


def test_too_few_values_are_inconclusive_not_a_failure():
    with pytest.raises(TimingInconclusive, match="only 2 value"):
        Reference((1.0, 2.0), CONTROL, "request latency")


def test_raised_needs_the_ratio_and_the_noise_ceiling():
    ref = Reference((4.0, 5.0, 6.0, 40.0), CONTROL, "request latency")
    ref.assert_raised(300.0, factor=3, what="P99 during")
    with pytest.raises(AssertionError, match=r"P99 during is 12 ms, less than 3x the median of request latency"):
        ref.assert_raised(12.0, factor=3, what="P99 during")
    with pytest.raises(TimingInconclusive, match=r"inconclusive: P99 during is 30 ms, but .* up to 40 ms"):
        ref.assert_raised(30.0, factor=3, what="P99 during")


def test_restored_means_nearer_to_the_reference_than_to_the_fault_as_a_ratio():
    ref = Reference((4.0, 5.0, 6.0, 20.0), CONTROL, "request latency")
    ref.assert_restored(25.0, faulted=1000.0, what="P99 after")  # a loaded machine: 25 ms, far below 1 s
    ref.assert_restored(140.0, faulted=1000.0, what="P99 after")  # a spike the quiet reference never saw
    with pytest.raises(AssertionError, match=r"P99 after is 900 ms, not back to .*the 1000 ms during the fault"):
        ref.assert_restored(900.0, faulted=1000.0, what="P99 after")  # the mitigation did nothing
    with pytest.raises(AssertionError, match="allowed: 141.4 ms"):
        ref.assert_restored(150.0, faulted=1000.0, what="P99 after")  # nearer to the faulted level
    with pytest.raises(TimingInconclusive, match="noise hides the fault"):
        ref.assert_restored(5.0, faulted=55.0, what="P99 after")  # the fault itself within 3x the noise


def test_restored_above_the_allowed_value_only_by_a_wait_for_a_cpu_is_inconclusive():
    """The P99 of a small window that one descheduled request decides: above the allowed 141 ms by less than that
    request waited for a CPU (the kernel's run-queue wait), so the machine's load, not the service, put it there."""
    ref = Reference((4.0, 5.0, 6.0, 20.0), CONTROL, "request latency")
    window = [Waited(6.0, 0.0, "request 1"), Waited(210.0, 95.0, "request 2"), Waited(7.0, 1.0, "request 3")]
    with pytest.raises(TimingInconclusive, match=r"inconclusive: P99 before is 200 ms, not back to .*allowed: 141.4 ms"
                                                 r".*1 measurement\(s\) above 141.4 ms exceeded it by no more than they "
                                                 r"waited for a CPU \(request 2: 210 ms, 95 ms of it waiting"):
        ref.assert_restored(200.0, faulted=1000.0, what="P99 before", waits=window)
    ref.assert_restored(20.0, faulted=1000.0, what="P99 before", waits=window)  # within: nothing to explain


def test_restored_still_fails_when_the_requests_waited_on_the_fault_not_for_a_cpu():
    """A mitigation that did nothing: the requests after the fault still take the faulted time, and what they
    waited for a CPU covers a fraction of their excess; a wait not measured explains nothing either."""
    ref = Reference((4.0, 5.0, 6.0, 20.0), CONTROL, "request latency")
    nothing_done = [Waited(950.0, 30.0, "request 8"), Waited(900.0, 2.0, "request 9")]
    with pytest.raises(AssertionError, match=r"P99 after is 940 ms, not back to .*; not explained by waiting for a CPU "
                                             r"\(request 8: 950 ms, 30 ms of it waiting for a CPU; request 9: 900 ms"):
        ref.assert_restored(940.0, faulted=1000.0, what="P99 after", waits=nothing_done)
    partly = [Waited(6.0, 0.0, "request 1"), Waited(210.0, 95.0, "request 2"), Waited(180.0, 10.0, "request 3")]
    with pytest.raises(AssertionError, match=r"request 3: 180 ms, 10 ms of it waiting for a CPU\)$"):
        ref.assert_restored(200.0, faulted=1000.0, what="P99 before", waits=partly)
    with pytest.raises(AssertionError, match="its wait for a CPU not measured"):
        ref.assert_restored(200.0, faulted=1000.0, what="P99 before", waits=[Waited(210.0, None, "request 2")])
    with pytest.raises(AssertionError, match="no measurement given is above it"):
        ref.assert_restored(200.0, faulted=1000.0, what="P99 before", waits=[Waited(6.0, 0.0)])


def test_at_most_without_waits_is_a_plain_bound():
    assert_at_most(300.0, 300.0, what="request 25", bound="later than the deadline's allowance")
    with pytest.raises(AssertionError, match=r"^request 25 is 301 ms, later than the deadline's allowance$"):
        assert_at_most(301.0, 300.0, what="request 25", bound="later than the deadline's allowance")
    with pytest.raises(TimingInconclusive, match=r"a measurement: 301 ms, 2 ms of it waiting for a CPU"):
        assert_at_most(301.0, 300.0, what="request 25", bound="late", waits=[Waited(301.0, 2.0)])


def test_allowance_adds_the_reference_noise_to_the_margin():
    assert Reference((1.0, 2.0, 8.0), CONTROL, "answer time").allowance(50) == 58


def test_share_of_sums():
    assert share([50, 50], [100, 300]) == 0.25
    with pytest.raises(TimingInconclusive):
        share([1], [0])


def test_the_assertion_suite_reports_inconclusive_as_skipped_with_the_reason(tmp_path):
    (tmp_path / "test_case.py").write_text(
        "from faultlib.evidence.timing import Reference, CONTROL\n"
        "def test_noisy():\n"
        "    Reference((1.0, 2.0, 300.0), CONTROL, 'P99').assert_raised(250.0, factor=3, what='P99 during')\n")
    junit = tmp_path / "junit.xml"
    env = {**os.environ, "FAULTLIB_PHASE_STATUS": json.dumps({})}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "faultlib.cases.fixture", "-p", "no:cacheprovider",
                           "-c", os.devnull, "--rootdir", str(tmp_path), "-q", "-rs", f"--junitxml={junit}",
                           str(tmp_path / "test_case.py")], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 skipped" in proc.stdout and "inconclusive: P99 during is 250 ms" in proc.stdout
