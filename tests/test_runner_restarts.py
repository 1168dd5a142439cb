"""The runner's restart loop (repro.restarts) on a tiny torch-free case killed by the process_kill shim."""

from __future__ import annotations

import json

import pytest
import yaml

from faultlib import schemas
from faultlib.archive import FileArchive
from faultlib.archive.manifest import verify
from faultlib.cases import load_case
from faultlib.cases.model import RestartPolicy
from faultlib.errors import CaseValidationError
from faultlib.evidence import layout, read_run
from faultlib.record import PhaseStatus, Verdict
from faultlib.runner import Runner
from tests.conftest import tiny_case_data, write_case
from tests.test_runner import Recorded

# resumes from a progress file it replaces atomically after every step; the run dir outlives a kill
RESTART_REPRO = '''
import json, os
from faultlib import repro

with repro.context() as ctx:
    ctx.attach(None)
    progress = ctx.dump_dir / "progress.json"
    start = json.loads(progress.read_text())["next"] if progress.exists() else 0
    print(f"attempt={ctx.attempt} start={start}")
    for step in range(start, 6):
        with ctx.step(step, total=6) as span:
            span.set(value=step)
        tmp = progress.with_suffix(".tmp")
        tmp.write_text(json.dumps({"next": step + 1}))
        os.replace(tmp, progress)
    ctx.summary(start=start, attempt=ctx.attempt)
'''

RESTART_TEST = '''
def test_every_step_ran(evidence):
    for phase in (evidence.control, evidence.faulted):
        assert sorted({s.attributes["faultlib.step"] for s in phase.steps()}) == list(range(6))
'''


class WithRestarts(Recorded):
    def phase_restarted(self, phase, attempt, reason):
        self.events.append(("phase_restarted", phase, attempt, reason))


def restart_case(tmp_path, *, restarts=None, kills=({"at_step": 3},), case_id="restart_case"):
    data = tiny_case_data(case_id)
    data["repro"]["params"] = {}
    if restarts is not None:
        data["repro"]["restarts"] = restarts
    data["inject"]["local"] = [{"shim": "process_kill", "params": dict(k)} for k in kills]
    data["assertions"] = [{"id": "every_step_ran", "when": "after", "test": "test_every_step_ran", "description": "d"}]
    return write_case(tmp_path / "cases", data, repro=RESTART_REPRO, test=RESTART_TEST)


def run(case_dir, tmp_path):
    listener = WithRestarts()
    archive = FileArchive(tmp_path / "archive")
    record = Runner(archive, listener=listener).run(load_case(case_dir))
    return record, archive.root / record.case["id"] / record.run_id, listener


def test_a_killed_phase_is_restarted_and_resumes_in_the_same_evidence(tmp_path):
    record, run_dir, listener = run(restart_case(tmp_path, restarts={"max": 1}), tmp_path)
    assert record.verdict is Verdict.PASSED, record.error
    assert [(a.attempt, a.exit_code, a.signal) for a in record.faulted.attempts] == [(1, -9, "SIGKILL"), (2, 0, None)]
    assert [(a.attempt, a.exit_code) for a in record.control.attempts] == [(1, 0)]
    assert record.faulted.status is PhaseStatus.OK and record.faulted.exit_code == 0
    assert record.faulted.duration_s >= sum(a.duration_s for a in record.faulted.attempts)
    data = json.loads((run_dir / layout.RUN).read_text())
    schemas.validator("run").validate(data)
    assert [(a["signal"], a["exit_code"]) for a in data["faulted"]["attempts"]] == [("SIGKILL", -9), (None, 0)]
    assert ("phase_restarted", "faulted", 1, "SIGKILL") in listener.events
    assert [e for e in listener.events if e[0] == "phase_finished"][-1] == ("phase_finished", "faulted", "ok")

    stdout, stderr = (run_dir / layout.STDOUT).read_text(), (run_dir / layout.STDERR).read_text()
    faulted_out = stdout[stdout.index("# faultlib phase=faulted\n"):]
    assert faulted_out.index("attempt=1 start=0") < faulted_out.index("# faultlib phase=faulted attempt=2\n") \
        < faulted_out.index("attempt=2 start=3")
    assert "# faultlib: phase faulted killed by SIGKILL (exit code -9)" in stderr
    assert "# faultlib phase=faulted attempt=2" in stderr

    evidence = read_run(run_dir)
    by_attempt = {}
    for span in evidence.faulted.steps():
        by_attempt.setdefault(span.attributes["faultlib.attempt"], []).append(span.attributes["faultlib.step"])
    assert by_attempt == {1: [0, 1, 2], 2: [3, 4, 5]}
    assert evidence.faulted.summary == {"start": 3, "attempt": 2}
    assert [a["signal"] for a in evidence.faulted.attempts] == ["SIGKILL", None]
    assert verify(run_dir) == []


def test_without_restarts_a_kill_is_an_error_naming_the_signal(tmp_path):
    record, run_dir, listener = run(restart_case(tmp_path), tmp_path)
    assert record.verdict is Verdict.ERROR
    assert record.faulted.status is PhaseStatus.CRASHED and record.faulted.exit_code == -9
    assert len(record.faulted.attempts) == 1
    assert "faulted phase was killed by SIGKILL" in record.error
    assert not [e for e in listener.events if e[0] == "phase_restarted"]


def test_restarts_stop_at_max(tmp_path):
    kills = ({"at_step": 1}, {"at_step": 2, "attempt": 2})
    record, _, _ = run(restart_case(tmp_path, restarts={"max": 1}, kills=kills), tmp_path)
    assert [(a.attempt, a.signal) for a in record.faulted.attempts] == [(1, "SIGKILL"), (2, "SIGKILL")]
    assert record.verdict is Verdict.ERROR and "killed by SIGKILL" in record.error


def test_only_the_listed_signals_are_restarted(tmp_path):
    record, _, _ = run(restart_case(tmp_path, restarts={"max": 2, "on_signal": ["SIGTERM"]}), tmp_path)
    assert len(record.faulted.attempts) == 1 and record.faulted.attempts[0].signal == "SIGKILL"
    assert record.verdict is Verdict.ERROR


def test_restart_policy_decisions():
    policy = RestartPolicy(max=2, on_signal=("SIGKILL",))
    assert policy.allows(-9, 1) and policy.allows(-9, 2)
    assert not policy.allows(-9, 3)                      # max reached
    assert not policy.allows(1, 1) and not policy.allows(0, 1) and not policy.allows(None, 1)
    assert not policy.allows(-15, 1)                     # SIGTERM not listed
    assert not RestartPolicy().allows(-9, 1)             # default: never


def test_restarts_field_is_validated_with_file_line_and_field(tmp_path):
    case_dir = restart_case(tmp_path, restarts={"max": 1, "on_signals": ["SIGKILL"]})
    with pytest.raises(CaseValidationError) as info:
        load_case(case_dir)
    problem = info.value.problems[0]
    assert problem.field == "repro.restarts.on_signals" and "did you mean 'on_signal'?" in problem.message
    text = (case_dir / "case.yaml").read_text().splitlines()
    assert text[problem.line - 1].strip().startswith("on_signals:")
    data = yaml.safe_load((case_dir / "case.yaml").read_text())
    data["repro"]["restarts"] = {"max": -1}
    (case_dir / "case.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(CaseValidationError, match="repro.restarts.max: -1 is less than the minimum of 0"):
        load_case(case_dir)
