"""The runner's phases on small real cases: verdicts, timeouts, crashes, evidence kept."""

from __future__ import annotations

import json
import time

import pytest

from faultlib import schemas
from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.cases import load_case
from faultlib.errors import CaseError
from faultlib.events import RunListener
from faultlib.evidence import layout, read_run
from faultlib.record import PhaseStatus, Verdict
from faultlib.runner import Runner


class Recorded(RunListener):
    def __init__(self):
        self.events = []

    def phase_started(self, phase, faults):
        self.events.append(("phase_started", phase))

    def step(self, phase, step, total):
        self.events.append(("step", phase, step, total))

    def phase_finished(self, phase, result):
        self.events.append(("phase_finished", phase, result.status.value))

    def archived(self, uri):
        self.events.append(("archived", uri))


def _run(case_dir, tmp_path, **kwargs):
    listener = Recorded()
    archive = FileArchive(tmp_path / "archive")
    record = Runner(archive, listener=listener).run(load_case(case_dir), **kwargs)
    return record, archive.root / record.case["id"] / record.run_id, listener


def test_passing_run_writes_valid_record_and_complete_manifest(tiny_case, tmp_path):
    case_dir = tiny_case()
    catalog = sorted(p.name for p in case_dir.iterdir())
    record, run_dir, listener = _run(case_dir, tmp_path)
    assert sorted(p.name for p in case_dir.iterdir()) == catalog  # pytest-benchmark left .benchmarks/ there
    assert record.verdict is Verdict.PASSED, record.error
    assert record.control.status is PhaseStatus.OK and record.faulted.exit_code == 0
    assert sorted(record.assertions["passed"]) == ["asked_to_fail", "control_silent", "steps_recorded"]
    data = json.loads((run_dir / layout.RUN).read_text())
    schemas.validator("run").validate(data)
    assert data["seed"] == 3 and data["fingerprint"]["packages"]["pyyaml"]
    assert verify(run_dir) == []
    for name in (layout.TRACES, layout.METRICS, layout.METRICS_PROM, layout.LOGS, layout.STDOUT, layout.STDERR,
                 layout.JUNIT, layout.RUN):
        assert (run_dir / name).is_file(), name
    stdout = (run_dir / layout.STDOUT).read_text()
    assert stdout.index("# faultlib phase=control") < stdout.index("phase=faulted pid=")
    phases = [e for e in listener.events if e[0] != "step"]
    assert phases[:4] == [("phase_started", "control"), ("phase_finished", "control", "ok"),
                          ("phase_started", "faulted"), ("phase_finished", "faulted", "ok")]
    assert ("step", "faulted", 4, 5) in listener.events
    assert listener.events[-1][0] == "archived"


def test_failing_assertion_gives_failed(tiny_case, tmp_path):
    record, run_dir, _ = _run(tiny_case(fail_assertion=True), tmp_path)
    assert record.verdict is Verdict.FAILED
    assert record.assertions["failed"] == ["asked_to_fail"]
    [failure] = record.assertions["failures"]  # why it failed and which test says so, in the record itself
    assert (failure["id"], failure["test"]) == ("asked_to_fail", "test_always_fails_when_asked")
    assert failure["message"].startswith("AssertionError: assert not True") and "\n" not in failure["message"]
    assert "test_always_fails_when_asked" in (run_dir / layout.ASSERTIONS_LOG).read_text()
    assert verify(run_dir) == []


def test_crash_gives_error_with_traceback_in_stderr(tiny_case, tmp_path):
    record, run_dir, _ = _run(tiny_case(mode="crash"), tmp_path)
    assert record.verdict is Verdict.ERROR
    assert record.faulted.status is PhaseStatus.CRASHED and record.faulted.exit_code == 1
    assert "faulted phase exited with code 1" in record.error
    stderr = (run_dir / layout.STDERR).read_text()
    assert "Traceback" in stderr and "RuntimeError: tiny repro crashed on purpose" in stderr
    # spans finished before the crash are kept, and the run is complete and verifiable
    assert len(read_run(run_dir).faulted.steps()) == 5
    assert verify(run_dir) == []


def test_hang_is_killed_at_timeout_with_partial_evidence(tiny_case, tmp_path):
    started = time.monotonic()
    record, run_dir, _ = _run(tiny_case(mode="hang"), tmp_path, timeout_s=4)
    assert time.monotonic() - started < 40
    assert record.verdict is Verdict.ERROR and record.faulted.status is PhaseStatus.TIMEOUT
    assert record.faulted.exit_code is None
    assert "killed at its timeout of 4 s" in record.error
    evidence = read_run(run_dir)
    assert len(evidence.faulted.steps()) == 5, "spans written before the hang must be kept"
    assert "phase=faulted" in (run_dir / layout.STDOUT).read_text()
    assert "killed after 4 s" in (run_dir / layout.STDERR).read_text()
    junit = (run_dir / layout.JUNIT).read_text()
    assert "killed at its timeout" in junit
    assert verify(run_dir) == []


def test_no_control_skips_the_control_phase(tiny_case, tmp_path):
    record, run_dir, _ = _run(tiny_case(), tmp_path, control=False)
    assert record.control.status is PhaseStatus.SKIPPED
    # steps_recorded reads evidence.control, control_silent is checked `before`: both skipped, not failed
    assert record.assertions == {"passed": ["asked_to_fail"], "failed": [],
                                 "skipped": ["steps_recorded", "control_silent"], "failures": []}
    assert record.verdict is Verdict.PASSED
    junit = (run_dir / "junit.xml").read_text()
    assert 'name="tiny_case::control_silent"' in junit and "skipped (no control run)" in junit


def test_requires_are_checked_before_anything_is_written(tiny_case, tmp_path):
    case_dir = tiny_case()
    case = load_case(case_dir)
    case.requires["packages"] = {"no-such-package-xyz": ">=1"}
    with pytest.raises(CaseError, match="no-such-package-xyz is not installed") as info:
        Runner(FileArchive(tmp_path / "archive")).run(case)
    assert info.value.field == "requires.packages.no-such-package-xyz"
    assert not (tmp_path / "archive").exists()


PLUGINS_TEST = """
from importlib.metadata import entry_points


def test_only_pytest_and_faultlib_plugins(request):
    installed = {ep.name for ep in entry_points(group="pytest11")}
    loaded = {name for name, _ in request.config.pluginmanager.list_name_plugin()}
    assert not installed & loaded, sorted(installed & loaded)
    assert request.config.pluginmanager.has_plugin("faultlib.cases.fixture")
"""


def test_the_assertion_suite_loads_no_installed_pytest_plugin(tmp_path):
    """Plugins installed beside pytest (hypothesis, xdist, benchmark here) stay out of a case's suite:
    they could change its verdict, and starting them costs every run (hypothesis' alone ~1 s of CPU)."""
    from importlib.metadata import entry_points

    from faultlib.runner import _junit_results, run_assertion_suite
    from tests.conftest import tiny_case_data, write_case

    if not list(entry_points(group="pytest11")):
        pytest.skip("no pytest plugin is installed in this environment: nothing to keep out")
    data = tiny_case_data()
    data["assertions"] = [{"id": "plugins", "when": "after", "test": "test_only_pytest_and_faultlib_plugins",
                           "description": "d"}]
    case = load_case(write_case(tmp_path / "cases", data, test=PLUGINS_TEST))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    status = {p: {"status": "ok", "exit_code": 0, "duration_s": 0.0, "findings": [], "attempts": []}
              for p in ("control", "faulted")}
    with open(tmp_path / "suite.txt", "wb") as out:
        outcome = run_assertion_suite(case, run_dir, status, junit=tmp_path / "junit.xml", output=out)
    passed, failed, *_ = _junit_results(tmp_path / "junit.xml", case)
    assert outcome.exit_code == 0 and passed == ["plugins"], (tmp_path / "suite.txt").read_text()[-2000:]
