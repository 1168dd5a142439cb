"""The flight recorder's stop-signal dump on a real world: torchrun's SIGTERM to ranks hung in a collective.

torchrun stops its workers with SIGTERM (on its own SIGTERM/SIGINT, or when one worker fails); a rank hung in a
gloo collective never returns to the interpreter, so only the recorder's thread can dump. The dump must come
before the default action, and the rank must still die by SIGTERM (the exit status torchrun reads).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import REPO, cli
from tests.detect.test_flight_recorder import WORLD, _check, _dump, _line_of

pytest.importorskip("torch")


def test_sigterm_from_torchrun_dumps_every_hung_rank_then_ends_it_by_the_signal(tmp_path):
    dumps = tmp_path / "dumps"
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "WATCHDOG_S": "1", "GLOO_TIMEOUT_S": "120"}
    log = open(tmp_path / "torchrun.log", "w")
    agent = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
                              "--standalone",  # the agent binds its store on a port the OS picks (no port race)
                              str(WORLD), "skip", str(dumps)], env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    log.close()
    pids: list[int] = []
    try:
        hung = [_dump(dumps / f"rank{r}.json", "watchdog", timeout=90) for r in range(2)]  # both wait in seq 7
        pids = [doc["pid"] for doc in hung]
        assert all(doc["entries"][-1]["state"] == "started" for doc in hung)
        agent.send_signal(signal.SIGTERM)  # the agent forwards SIGTERM to its workers
        agent.wait(timeout=60)
        stopped = [json.loads((dumps / f"rank{r}.json").read_text()) for r in range(2)]
        log_text = (tmp_path / "torchrun.log").read_text()
        for r, doc in enumerate(stopped):
            assert (doc["reason"], doc["signal"], doc["pid"]) == ("signal", "SIGTERM", pids[r]), log_text
            assert doc["dumped_at_ns"] > hung[r]["dumped_at_ns"]
        assert not any(_alive(pid) for pid in pids)  # the signal was not swallowed by the hung ranks
        assert sorted(p.name for p in dumps.iterdir()) == ["rank0.json", "rank1.json"]  # no empty fatal trace left
    finally:
        if agent.poll() is None:
            os.killpg(agent.pid, signal.SIGKILL)
            agent.wait(timeout=10)
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    proc, out = _check(dumps)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = out["first_divergence"]
    assert (first["seq"], first["ranks"], first["kind"]) == (7, [1], "collective_missing")
    assert first["call_sites"]["0"]["line"] == _line_of("the loss sum, skipped")
    assert sorted(r["rank"] for r in out["waiting_ranks"]) == [0, 1]


def test_stop_signals_dump_then_take_their_previous_action_and_exit_status(tmp_path):
    """One process, no world: SIGTERM under its default action while the main thread runs Python (the process
    still dies by SIGTERM), and SIGINT under Python's own handler while it sleeps (KeyboardInterrupt, as without
    the recorder)."""
    # Python's own SIGINT handler set explicitly: a child of a background job inherits SIGINT ignored, and
    # Python then installs none (the previous action the recorder must take would be "ignore")
    code = ("import signal, sys, time\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from faultlib.detect import FlightRecorder\n"
            "FlightRecorder(sys.argv[1], watchdog_s=None).install()\nprint('ready', flush=True)\n"
            "while sys.argv[2] == 'busy':\n    pass\ntime.sleep(60)\n")
    for mode, signum in (("busy", signal.SIGTERM), ("sleep", signal.SIGINT)):
        out = tmp_path / mode
        proc = subprocess.Popen([sys.executable, "-c", code, str(out), mode], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            assert proc.stdout.readline().strip() == "ready"
            proc.send_signal(signum)
            assert proc.wait(timeout=30) == -signum  # the status it would have had: the signal not swallowed
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        doc = json.loads((out / "rank0.json").read_text())
        assert (doc["reason"], doc["signal"]) == ("signal", signal.Signals(signum).name)
        if signum == signal.SIGINT:
            assert "KeyboardInterrupt" in proc.stderr.read()  # Python's handler ran after the dump
    human = cli("check", "collectives", str(tmp_path / "busy"), cwd=tmp_path)
    assert human.returncode == 0, human.stdout + human.stderr


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
