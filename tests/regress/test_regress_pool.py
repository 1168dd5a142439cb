"""The pool in-process: the watchdog stops a case that runs past its budget (and the run is finished, its
evidence kept), a worker that ends without a result is an error naming its output, listeners hear every case."""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.regress import pool as pool_module
from faultlib.regress.plan import plan
from faultlib.regress.pool import Pool, RunOptions, case_result
from faultlib.regress.results import CaseVerdict, RegressListener
from tests.conftest import tiny_case_data, write_case

SLOW_SUITE = '''
import time

def test_steps_recorded():
    time.sleep(600)

def test_control_silent():
    pass

def test_always_fails_when_asked():
    pass
'''


class Heard(RegressListener):
    def __init__(self):
        self.events = []

    def planned(self, cases):
        self.events.append(("planned", tuple(cases)))

    def case_started(self, case_id):
        self.events.append(("started", case_id))

    def case_state(self, case_id, state):
        self.events.append(("state", case_id, state.split()[0]))

    def case_finished(self, result):
        self.events.append(("finished", result.id, result.verdict.value))


def test_the_watchdog_stops_a_case_past_its_budget_and_keeps_its_evidence(tmp_path, monkeypatch):
    write_case(tmp_path / "cases", tiny_case_data("slow_case"), test=SLOW_SUITE)
    monkeypatch.setattr(pool_module, "ASSERTION_BUDGET_S", 0.0)
    monkeypatch.setattr(pool_module, "WATCHDOG_SLACK_S", 0.0)
    heard = Heard()
    # budget: 2 phases x 5 s (each tiny phase takes 1-3 s, on a loaded machine too): the suite's sleep runs past it
    options = RunOptions(archive=f"file://{tmp_path / 'runs'}", timeout_s=5.0)
    result = Pool(plan(tmp_path / "cases"), options, listener=heard).run()
    (case,) = result.cases
    assert case.verdict is CaseVerdict.ERROR and case.error.startswith("stopped by regress after 10 s")
    assert result.exit_code == 1 and not result.interrupted
    run_dir = Path(case.archive_uri.removeprefix("file://"))
    assert (run_dir / "manifest.json").is_file(), "the stopped run was finished"
    assert json.loads((run_dir / "run.json").read_text())["verdict"] == "error"
    assert heard.events[0] == ("planned", ("slow_case",)) and heard.events[1] == ("started", "slow_case")
    assert ("state", "slow_case", "assertions") in heard.events
    assert heard.events[-1] == ("finished", "slow_case", "error")


def test_a_worker_without_a_result_is_an_error_naming_its_output(tmp_path):
    write_case(tmp_path / "cases", tiny_case_data("lost_case"))
    (planned,) = plan(tmp_path / "cases").cases
    result = case_result(planned, None, duration_s=1.0, worker_log="Traceback ...\nMemoryError\n")
    assert result.verdict is CaseVerdict.ERROR and result.error.endswith("MemoryError")
    assert [a.status.value for a in result.assertions] == ["error"] * 3


def test_a_backend_error_before_the_run_maps_to_its_verdict(tmp_path):
    write_case(tmp_path / "cases", tiny_case_data("x_case"))
    (planned,) = plan(tmp_path / "cases").cases
    unreachable = case_result(planned, {"error": {"type": "BackendUnavailable", "message": "no engine",
                                                  "exit_code": 3, "field": None}}, duration_s=0.1)
    assert unreachable.verdict is CaseVerdict.UNAVAILABLE and unreachable.error == "no engine"
    other = case_result(planned, {"error": {"type": "CaseError", "message": "bad", "exit_code": 2,
                                            "field": "requires.python"}}, duration_s=0.1)
    assert other.verdict is CaseVerdict.ERROR and other.error == "CaseError: bad"
