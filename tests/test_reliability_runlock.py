"""A runner killed with kill -9: its repro dies with it, and faultlib.runlock finishes the run."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from faultlib import runlock, schemas
from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.processes.tree import is_alive, start_time
from faultlib.errors import EvidenceError
from faultlib.evidence import layout
from faultlib.record import PhaseStatus, Verdict
from tests.conftest import REPO


def _wait_for(predicate, timeout_s=60.0, what="condition"):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _faulted_repro_pid(archive):
    for stdout in archive.glob("*/*/" + layout.STDOUT):
        found = re.search(r"phase=faulted pid=(\d+)", stdout.read_text())
        if found:
            return stdout.parent, int(found.group(1))
    return None


def test_kill_9_of_the_runner_kills_the_repro_and_the_run_can_be_finished(tiny_case, tmp_path):
    archive = tmp_path / "runs"
    runner = subprocess.Popen([sys.executable, "-m", "faultlib", "run", str(tiny_case(mode="hang")), "--archive",
                               f"file://{archive}", "--json"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run_dir, repro = _wait_for(lambda: _faulted_repro_pid(archive), what="the faulted phase to hang")
        assert runlock.runner_alive(run_dir) is True and not runlock.is_orphaned(run_dir)
        with pytest.raises(EvidenceError, match="still alive"):
            runlock.finish_interrupted(run_dir)
        lock = runlock.read_lock(run_dir)
        assert lock.pid == runner.pid and lock.start_time == start_time(runner.pid)
        assert lock.host == socket.gethostname() and lock.phases == ("control", "faulted")
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    _wait_for(lambda: not is_alive(repro), timeout_s=5, what="the repro to die with its runner")
    assert runlock.runner_alive(run_dir) is False and runlock.is_orphaned(run_dir)
    assert not (run_dir / layout.MANIFEST).exists()

    record = runlock.finish_interrupted(run_dir)
    assert record.verdict is Verdict.INTERRUPTED
    assert record.control.status is PhaseStatus.OK and record.control.exit_code == 0  # kept from the lock
    assert record.faulted.status is PhaseStatus.INTERRUPTED
    assert f"pid {lock.pid}" in record.error and "died before finishing" in record.error
    assert sorted(record.assertions["failed"]) == ["asked_to_fail", "control_silent", "steps_recorded"]
    assert verify(run_dir) == []
    assert not (run_dir / runlock.LOCK).exists() and runlock.runner_alive(run_dir) is None
    data = json.loads((run_dir / layout.RUN).read_text())
    schemas.validator("run").validate(data)
    assert data["verdict"] == "interrupted" and data["faulted"]["status"] == "interrupted"
    assert runlock.LOCK not in {a["name"] for a in data["artifacts"]}
    assert "error" in (run_dir / layout.JUNIT).read_text()
    assert [r.verdict for r in FileArchive(archive).list_runs()] == ["interrupted"]
    with pytest.raises(EvidenceError, match="complete"):
        runlock.finish_interrupted(run_dir)


def _lock(run_dir, **changes):
    body = {"lock_version": 1, "pid": os.getpid(), "start_time": start_time(os.getpid()), "host": socket.gethostname(),
            "started_at": "2026-11-30T00:00:00+00:00", "phases": ["control", "faulted"], **changes}
    (run_dir / runlock.LOCK).write_text(json.dumps(body))


def test_runner_alive_tells_a_recycled_pid_another_host_and_a_bad_lock_apart(tmp_path):
    run_dir = tmp_path / "case_x" / "20261130T000000Z-abcdef"
    run_dir.mkdir(parents=True)
    assert runlock.runner_alive(run_dir) is None and not runlock.is_orphaned(run_dir)
    _lock(run_dir)
    assert runlock.runner_alive(run_dir) is True                    # this very process
    _lock(run_dir, start_time=start_time(os.getpid()) - 1)
    assert runlock.runner_alive(run_dir) is False                   # the PID now belongs to another process
    _lock(run_dir, host="some-other-host")
    assert runlock.runner_alive(run_dir) is True                    # cannot see that host's processes
    _lock(run_dir, boot_id="not-this-boot")
    assert runlock.runner_alive(run_dir) is False                   # rebooted since
    (run_dir / runlock.LOCK).write_text("[not a lock")
    assert runlock.runner_alive(run_dir) is False and runlock.is_orphaned(run_dir)


def test_finish_interrupted_without_progress_uses_the_directory_names(tmp_path):
    run_dir = tmp_path / "case_x" / "20261130T000000Z-abcdef"
    run_dir.mkdir(parents=True)
    (run_dir / layout.TRACES).write_text('{"resourceSpans": []}\n{"torn": ')
    (run_dir / layout.FINDINGS).write_text('["not", "a", "finding"]\n')
    _lock(run_dir, pid=2 ** 22 + 12345)  # no such process; no record
    record = runlock.finish_interrupted(run_dir)
    assert (record.case["id"], record.run_id) == ("case_x", "20261130T000000Z-abcdef")
    assert record.started_at == "2026-11-30T00:00:00+00:00"
    assert record.verdict is Verdict.INTERRUPTED
    assert {(f.location["file"], f.location.get("line"), f.severity.value) for f in record.findings} == {
        (layout.TRACES, 2, "warning"), (layout.FINDINGS, 1, "error")}
    assert verify(run_dir) == []
    schemas.validator("run").validate(json.loads((run_dir / layout.RUN).read_text()))


def test_promql_results_of_an_interrupted_run_are_moved_aside_not_archived_as_the_runners(tmp_path):
    run_dir = tmp_path / "case_x" / "20261130T000000Z-abcdef"
    run_dir.mkdir(parents=True)
    forged = b'{"prometheus": "forged", "queries": []}'
    (run_dir / layout.PROMQL).write_bytes(forged)
    _lock(run_dir, pid=2 ** 22 + 12345)
    record = runlock.finish_interrupted(run_dir)
    assert not (run_dir / layout.PROMQL).exists()
    [aside] = [p for p in run_dir.iterdir() if p.name.startswith(layout.PROMQL + ".repro-")]
    assert aside.read_bytes() == forged, "moved aside, kept as it was"
    [finding] = [f for f in record.findings if f.location.get("file") == layout.PROMQL]
    assert aside.name in finding.message and "--prometheus" in finding.message
    assert verify(run_dir) == []


HANGING_SUITE = '''
import os, subprocess, sys, time

def test_hangs(evidence):
    here = os.environ["FAULTLIB_EVIDENCE_DIR"]
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(here))), "suite.pids"), "w") as fh:
        fh.write(f"{os.getpid()} {child.pid}\\n")
    time.sleep(600)
'''


def test_kill_9_during_the_assertion_suite_kills_the_suite_and_finish_stops_its_children(tmp_path):
    from tests.conftest import tiny_case_data, write_case

    data = tiny_case_data("suite_case")
    data["assertions"] = [{"id": "hangs", "when": "after", "test": "test_hangs", "description": "d"}]
    case_dir = write_case(tmp_path / "cases", data, test=HANGING_SUITE)
    archive = tmp_path / "runs"
    runner = subprocess.Popen([sys.executable, "-m", "faultlib", "run", str(case_dir), "--archive", f"file://{archive}"],
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pids = tmp_path / "suite.pids"
    try:
        _wait_for(lambda: pids.exists() and pids.read_text().endswith("\n"), what="the suite to start")
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    suite, child = (int(p) for p in pids.read_text().split())
    _wait_for(lambda: not is_alive(suite), timeout_s=5, what="the suite's pytest to die with its runner")
    assert is_alive(child), "the suite's escaped child is still running: finish_interrupted must stop it"
    run_dir = next(archive.glob("suite_case/*"))
    assert runlock.is_orphaned(run_dir)
    record = runlock.finish_interrupted(run_dir)
    _wait_for(lambda: not is_alive(child), timeout_s=5, what="the leftover child to be killed")
    assert record.control.status is PhaseStatus.OK and record.faulted.status is PhaseStatus.OK
    assert record.verdict is Verdict.INTERRUPTED and record.assertions["failed"] == ["hangs"]
    assert "stopped 1 leftover process" in record.error
    assert verify(run_dir) == []


def test_an_interrupted_run_still_has_a_junit_with_every_planned_assertion_in_error(tiny_case, tmp_path):
    import xml.etree.ElementTree as ET

    from faultlib.cases import load_case
    from faultlib.events import RunListener
    from faultlib.runner import Runner

    class CtrlC(RunListener):
        def phase_started(self, phase, faults):
            if phase == "faulted":
                raise KeyboardInterrupt  # what Ctrl-C raises between the phases

    case = load_case(tiny_case())
    with pytest.raises(KeyboardInterrupt):
        Runner(FileArchive(tmp_path / "runs"), listener=CtrlC()).run(case)
    [run_dir] = (tmp_path / "runs" / case.id).iterdir()
    suite = ET.parse(run_dir / layout.JUNIT).getroot()
    assert [tc.get("name") for tc in suite.iter("testcase")] == [f"{case.id}::{a.id}" for a in case.assertions]
    assert all(tc.find("error") is not None and "interrupted" in tc.find("error").get("message")
               for tc in suite.iter("testcase"))
    listed = {f["name"] for f in json.loads((run_dir / layout.MANIFEST).read_text())["files"]}
    assert verify(run_dir) == [] and layout.JUNIT in listed
