"""One rank of a tiny DDP job under the straggler monitor (run by tests, one process per rank).

Usage: python straggler_world.py OUT_DIR STEPS [RANK:PHASE:FROM:TO:MS ...]
(RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the env). Each slowdown makes rank RANK spend MS more per
step in PHASE for steps FROM <= step < TO: ``data`` sleeps (a slow file system), ``compute`` spins the CPU (a
slower core). No slowdown: a healthy world. Writes OUT_DIR/rank<R>.json: every verdict and the monitor's step
history, whose ``waited_ms`` is how long this rank's main thread waited for a CPU in each step (the run-queue
wait the monitor reads from the kernel: faultlib.runqueue.run_queue_wait_ms), so a test can
tell a rank the scheduler starved from a healthy one.
"""

import atexit
import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist

from faultlib.detect import FlightRecorder, StragglerMonitor


def spin(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def main() -> None:
    out, steps = sys.argv[1], int(sys.argv[2])
    faults = [(int(r), p, int(a), int(b), float(ms)) for r, p, a, b, ms in (f.split(":") for f in sys.argv[3:])]
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    recorder = FlightRecorder(Path(out) / "dumps", watchdog_s=None, signum=None).install()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    gen = torch.Generator().manual_seed(rank)
    monitor = StragglerMonitor(every=5, flight_recorder=recorder)
    verdicts = []
    for step in range(steps):
        monitor.begin_step(step)
        slow = {p: ms for r, p, a, b, ms in faults if r == rank and a <= step < b}
        with monitor.phase("data"):
            x, y = torch.randn(32, 16, generator=gen), torch.randint(0, 4, (32,), generator=gen)
            if "data" in slow:
                time.sleep(slow["data"] / 1000)
        with monitor.phase("compute"):
            if "compute" in slow:
                spin(slow["compute"])
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        verdict = monitor.end_step()
        if verdict is not None:
            verdicts.append({"rank": verdict.rank, "phase": verdict.phase, "step": verdict.step,
                             "first_step": verdict.first_step, "excess_ms": verdict.excess_ms})
    dist.destroy_process_group()
    recorder.uninstall()
    Path(out, f"rank{rank}.json").write_text(json.dumps({"verdicts": verdicts, "history": list(monitor.history)}))


if __name__ == "__main__":
    main()
    # This rank's behaviour ends here. torch's gloo teardown at interpreter exit can abort the process
    # ("terminate called without an active exception", exit -6: a C++ thread destroyed unjoined), seen under load
    # after DDP with a Python comm hook; it is not what these tests measure. Run the exit handlers (the flight
    # recorder's exit dump), flush, and leave without the C++ static destructors.
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
