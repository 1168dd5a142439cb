"""benchmarks/contention.py's own parts (the benchmark itself runs nightly, not here): which cases it
picks, the copy without the mitigation, and busy loops that never outlive the block that started them."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from faultlib.cases import load_case
from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("contention", REPO / "benchmarks" / "contention.py")
contention = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("contention", contention)  # dataclasses look their module up there
_spec.loader.exec_module(contention)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False


def test_the_timing_cases_carry_the_switch_and_the_copy_turns_it_off(tmp_path):
    cases = contention.switchable_cases(REPO / "cases")
    assert {"event_loop_blocking", "downstream_timeout"} <= set(cases)
    copy = contention.without_mitigation(REPO / "cases" / "downstream_timeout", tmp_path)
    assert copy.name == "downstream_timeout"  # a case's id must equal its directory name
    case = load_case(copy)
    assert case.params["apply_mitigation"] is False
    assert load_case(REPO / "cases" / "downstream_timeout").params["apply_mitigation"] is True


def test_busy_loops_are_killed_by_pid_when_the_block_ends_even_on_an_error():
    loops = contention.BusyLoops(2, settle_s=0.1)
    with pytest.raises(KeyboardInterrupt):
        with loops:
            pids = [p.pid for p in loops.procs]
            assert len(pids) == 2 and all(_alive(pid) for pid in pids)
            raise KeyboardInterrupt  # Ctrl-C in the middle of a loaded run
    assert not any(_alive(pid) for pid in pids) and loops.procs == []


def test_a_mode_requires_passed_idle_the_idle_verdict_under_load_and_failed_without_the_mitigation():
    modes = {m.name: m for m in contention.MODES}
    idle = {"idle": "passed", "idle-no-control": "failed"}
    assert modes["idle"].expected({}) == "passed"
    assert modes["load"].expected(idle) == "passed" and modes["load-no-control"].expected(idle) == "failed"
    assert modes["load-mitigation-off-no-control"].expected(idle) == "failed"


def test_an_unknown_run_is_bad_usage(capsys):
    with pytest.raises(SystemExit) as exc:
        contention.main(["--only", "nosuchrun"])
    assert exc.value.code == 2 and "unknown run(s) nosuchrun" in capsys.readouterr().err
