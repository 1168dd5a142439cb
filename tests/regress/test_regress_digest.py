"""Reading a run's assertion results back: both JUnit namings (pytest's test functions, the runner's
``case::assertion``), parametrized tests, unreported tests, a run error with the repro's traceback, hostile
files; and the archive wrapper that digests a run before the archive takes it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from faultlib.cases import load_case
from faultlib.record import RunRecord
from faultlib.regress.digest import DigestingArchive, assertion_results
from faultlib.regress.results import AssertionStatus
from tests.conftest import tiny_case_data, write_case

FAILURE = '<failure message="AssertionError: 1 != 2">Traceback\nassert 1 == 2</failure>'


@pytest.fixture
def case(tmp_path):
    return load_case(write_case(tmp_path / "cases", tiny_case_data("dig_case")))


def _record(error: str | None = None) -> RunRecord:
    return RunRecord(run_id="r", case={"id": "dig_case", "version": "0.1.0", "path": "x"}, backend="local",
                     started_at="2026-11-30T00:00:00+00:00", seed=0, fingerprint={}, error=error)


def _junit(run_dir: Path, cases: str) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "junit.xml").write_text(f'<?xml version="1.0"?><testsuites><testsuite name="dig_case" tests="3">'
                                       f"{cases}</testsuite></testsuites>")


def _statuses(results) -> dict[str, str]:
    return {r.id: r.status.value for r in results}


def test_pytest_names_with_parametrized_tests(case, tmp_path):
    _junit(tmp_path / "run", '<testcase name="test_steps_recorded[a]" time="0.5"/>'
                             f'<testcase name="test_steps_recorded[b]" time="0.25">{FAILURE}</testcase>'
                             '<testcase name="test_control_silent"><skipped message="no control run"/></testcase>')
    results = assertion_results(case, tmp_path / "run", _record())
    assert _statuses(results) == {"steps_recorded": "failed", "control_silent": "skipped", "asked_to_fail": "failed"}
    steps = results[0]
    assert steps.message == "AssertionError: 1 != 2" and "assert 1 == 2" in steps.detail and steps.time_s == 0.75
    assert steps.when == "continuous" and steps.description == "d"
    assert "did not report test_always_fails_when_asked" in results[2].message


def test_runner_names_case_and_assertion(case, tmp_path):
    _junit(tmp_path / "run", '<testcase classname="dig_case" name="dig_case::steps_recorded" '
                             'file="test_case.py::test_steps_recorded"/>'
                             '<testcase classname="dig_case" name="dig_case::control_silent"/>'
                             f'<testcase name="dig_case::asked_to_fail">{FAILURE}</testcase>')
    results = assertion_results(case, tmp_path / "run", _record())
    assert _statuses(results) == {"steps_recorded": "passed", "control_silent": "passed", "asked_to_fail": "failed"}


def test_a_run_error_makes_every_unpassed_assertion_an_error_with_the_traceback(case, tmp_path):
    run_dir = tmp_path / "run"
    _junit(run_dir, '<testcase name="test_steps_recorded"/>')
    (run_dir / "stderr.txt").write_text("# faultlib phase=faulted\nTraceback\nRuntimeError: boom\n")
    results = assertion_results(case, run_dir, _record(error="faulted phase exited with code 1"))
    assert _statuses(results) == {"steps_recorded": "passed", "control_silent": "error", "asked_to_fail": "error"}
    assert all(r.message == "faulted phase exited with code 1" and "RuntimeError: boom" in r.detail
               for r in results[1:])


@pytest.mark.parametrize("content", ["<testsuites><testcase", "not xml at all", "<!DOCTYPE x [<!ENTITY a 'aaaa'>"
                                     "<!ENTITY b '&a;&a;&a;&a;'>]><testsuites>&b;</testsuites>"])
def test_unreadable_junit_reads_as_unreported(case, tmp_path, content):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "junit.xml").write_text(content)
    results = assertion_results(case, tmp_path / "run", _record())
    assert set(_statuses(results).values()) == {"failed"}


def test_a_symlinked_junit_is_not_followed(case, tmp_path):
    _junit(tmp_path / "elsewhere", '<testcase name="test_steps_recorded"/>')
    (tmp_path / "run").mkdir()
    os.symlink(tmp_path / "elsewhere" / "junit.xml", tmp_path / "run" / "junit.xml")
    assert _statuses(assertion_results(case, tmp_path / "run", _record()))["steps_recorded"] == "failed"


def test_no_run_directory_means_no_evidence(case):
    results = assertion_results(case, None, None)
    assert {r.status for r in results} == {AssertionStatus.ERROR} and results[0].message == "the run did not finish"


class _Store:
    uri = "file://x"

    def __init__(self):
        self.published = []

    def publish(self, run_dir, case_id, run_id):
        assert (run_dir / "junit.xml").exists(), "digested before the archive takes the run"
        self.published.append((case_id, run_id))

    def run_uri(self, case_id, run_id):
        return f"{self.uri}/{case_id}/{run_id}"


def test_digesting_archive_reads_the_run_then_delegates(case, tmp_path):
    store = _Store()
    archive = DigestingArchive(store, case, report=True)
    assert archive.run_uri("a", "b") == "file://x/a/b" and archive.uri == "file://x"
    _junit(tmp_path / "run", '<testcase name="test_steps_recorded"/>')
    archive.publish(tmp_path / "run", "dig_case", "r")
    assert store.published == [("dig_case", "r")] and archive.run_dir == tmp_path / "run"
    assert _statuses(archive.assertions)["steps_recorded"] == "passed"
    assert archive.report is not None and "charts" in archive.report, "an empty run still digests"
