"""The process_kill shim, in real subprocesses: who dies, when, and on which attempt."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from faultlib.errors import InjectionError
from faultlib.evidence import read_run
from faultlib.inject import build
from faultlib.repro import phase_env

# a repro with 6 steps and a "checkpoint" after step 3; prints each step it completes
REPRO = textwrap.dedent('''
    import os
    from faultlib import repro

    with repro.context() as ctx:
        ctx.attach(None)
        for step in range(6):
            with ctx.step(step, total=6):
                pass
            print(f"done {step}", flush=True)
            if step == 3:
                ctx.fault_point("checkpoint.write", step=4, bytes_written=10, bytes_total=20)
                print("checkpoint 4 written", flush=True)
    print("exited normally", flush=True)
''')


def run_repro(tmp_path, shims, *, attempt=1, wrapper=False):
    script = tmp_path / "repro.py"
    script.write_text(REPRO)
    run_dir = tmp_path / "run"
    env = {**os.environ, **phase_env(run_dir=run_dir, run_id="r", case_id="c", phase="faulted", seed=0, params={},
                                     faults=[{"shim": "process_kill", "params": p} for p in shims],
                                     attempt=attempt)}
    argv = [sys.executable, str(script)]
    if wrapper:  # a group leader that runs the repro as a plain child (not a leader) and reports on it
        argv = [sys.executable, "-c", "import subprocess, sys; r = subprocess.run(sys.argv[1:]); "
                                      "print('wrapper saw', r.returncode, flush=True)", *argv]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, start_new_session=True)
    return proc, run_dir


def test_kills_the_process_group_at_the_start_of_the_chosen_step(tmp_path):
    proc, run_dir = run_repro(tmp_path, [{"at_step": 2}])
    assert proc.returncode == -signal.SIGKILL
    assert proc.stdout.split("\n")[:2] == ["done 0", "done 1"] and "done 2" not in proc.stdout
    assert "process_kill: SIGKILL at fault point 'step', step 2 (attempt 1)" in proc.stderr
    faulted = read_run(run_dir).faulted
    [fault] = faulted.spans_named("faultlib.fault")
    assert fault.attributes["point"] == "step" and fault.attributes["step"] == 2
    assert fault.attributes["faultlib.attempt"] == 1 and fault.attributes["scope"] == "process_group"
    assert [s.attributes["faultlib.step"] for s in faulted.steps()] == [0, 1]
    assert any("fault process_kill" in log["body"] for log in faulted.logs)


def test_kills_mid_checkpoint_write(tmp_path):
    proc, run_dir = run_repro(tmp_path, [{"at_step": 4, "during": "checkpoint.write"}])
    assert proc.returncode == -signal.SIGKILL
    assert "done 3" in proc.stdout and "checkpoint 4 written" not in proc.stdout
    [fault] = read_run(run_dir).faulted.spans_named("faultlib.fault")
    assert fault.attributes["point"] == "checkpoint.write"
    assert fault.attributes["bytes_written"] == 10 and fault.attributes["bytes_total"] == 20


def test_never_fires_on_another_attempt(tmp_path):
    proc, run_dir = run_repro(tmp_path, [{"at_step": 2}, {"at_step": 4, "during": "checkpoint.write", "attempt": 3}],
                              attempt=2)
    assert proc.returncode == 0, proc.stderr
    assert "exited normally" in proc.stdout and "process_kill" not in proc.stderr
    assert read_run(run_dir).faulted.spans_named("faultlib.fault") == []
    assert {s.attributes["faultlib.attempt"] for s in read_run(run_dir).faulted.steps()} == {2}


def test_a_repro_that_is_not_a_group_leader_kills_only_itself(tmp_path):
    proc, _ = run_repro(tmp_path, [{"at_step": 1}], wrapper=True)
    assert proc.returncode == 0
    assert "wrapper saw -9" in proc.stdout
    [fault_line] = [line for line in proc.stderr.splitlines() if "process_kill" in line]
    assert "step 1" in fault_line


def test_sigterm_variant_and_param_validation(tmp_path):
    proc, _ = run_repro(tmp_path, [{"at_step": 1, "signal": "SIGTERM"}])
    assert proc.returncode == -signal.SIGTERM
    with pytest.raises(InjectionError, match="at_step"):
        build("process_kill", {})
    with pytest.raises(InjectionError, match="'training' is not one of"):
        build("process_kill", {"at_step": 1, "during": "training"})
    with pytest.raises(InjectionError, match="'SIGSTOP' is not one of"):
        build("process_kill", {"at_step": 1, "signal": "SIGSTOP"})


def test_fault_point_before_attach_is_an_ordering_error(tmp_path):
    from faultlib.inject import InjectorSet
    from faultlib.repro import ReproContext

    ctx = ReproContext(run_dir=tmp_path, run_id="r", case_id="c", phase="faulted", seed=0, params={},
                       faults=InjectorSet([build("process_kill", {"at_step": 0})]))
    try:
        with pytest.raises(InjectionError, match=r"ctx.fault_point\('checkpoint.write'\) before the faults"):
            ctx.fault_point("checkpoint.write", step=0)
    finally:
        ctx.evidence.close()
