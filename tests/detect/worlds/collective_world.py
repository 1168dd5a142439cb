"""One rank of a tiny 2-rank gloo job under the flight recorder (run by tests, one process per rank).

Usage: python collective_world.py SCENARIO DUMP_DIR   (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT from the env)

Scenarios:
  healthy  5 steps of a gradient all_reduce plus a broadcast, a final barrier, clean exit;
  skip     every step all-reduces the loss sum, except on rank 1 at step 2, whose batch is empty (a
           data-dependent branch): rank 1 goes on to the broadcast, rank 0 waits in the all-reduce, and
           both hang until the watchdogs dump (the gloo timeout is far later);
  shape    at step 2 the ranks all-reduce tensors of one size but different shapes: gloo (like NCCL) sums
           the bytes and nobody notices; the run ends cleanly;
  ddp_skip rank 1 skips one step's backward under DDP: identical bucket all-reduces pair across steps;
  uneven   rank 1 has one batch more than rank 0 (3 vs 4): rank 0 leaves its loop and exits cleanly while
           rank 1 all-reduces a fourth time;
  raise    rank 1 raises on its batch of step 2 while rank 0 waits in that step's all-reduce;
  dtype    at step 1 rank 1 all-reduces float64 where rank 0 passes float32 (a loss logged through numpy):
           gloo aborts one process (std::terminate), which leaves no dump.
"""

import atexit
import datetime
import os
import sys

import torch
import torch.distributed as dist

from faultlib.detect import FlightRecorder


def empty_batch(rank: int, step: int) -> bool:
    return rank == 1 and step == 2


def ddp_skip(recorder, rank: int) -> None:
    """Rank 1 skips step 1's backward (a per-rank `continue` on a bad batch) and still steps its optimizer: its
    later gradient all-reduces pair with rank 0's of the step before (same bucket, same shape: gloo says
    nothing), until rank 0 waits for one rank 1 never issues; rank 1 leaves, rank 0's all-reduce fails."""
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))  # its built-in C++ all-reduce
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(4):
        loss = model(torch.ones(3, 4)).sum()
        if not (rank == 1 and step == 1):
            loss.backward()  # the skipped step's gradient all-reduce
        optimizer.step()
        optimizer.zero_grad()
    print(f"rank {rank} finished its loop", flush=True)


def uneven_or_raise(scenario: str, rank: int) -> None:
    for step in range(3 + rank if scenario == "uneven" else 4):
        if scenario == "raise" and rank == 1 and step == 2:
            raise ValueError("corrupt record in batch 2")
        dist.all_reduce(torch.ones(4))  # one batch's gradient all-reduce


def main() -> None:
    scenario, dump_dir = sys.argv[1], sys.argv[2]
    rank = int(os.environ["RANK"])
    # gloo's timeout also bounds the rendezvous: on a loaded machine one rank may import torch 20-30 s after the
    # other, and a 20 s timeout then failed both ranks before the recorder was installed (no dumps; rank 1 still
    # exits 1, as in the raise scenario). No scenario ends by this timeout (a rank whose peer left fails at once)
    timeout = datetime.timedelta(seconds=float(os.environ.get("GLOO_TIMEOUT_S", "120")))
    dist.init_process_group("gloo", timeout=timeout)
    recorder = FlightRecorder(dump_dir, watchdog_s=float(os.environ.get("WATCHDOG_S", "2")), poll_s=0.1).install()
    if scenario == "ddp_skip":
        ddp_skip(recorder, rank)
        return
    if scenario in ("uneven", "raise"):
        uneven_or_raise(scenario, rank)
        return
    if scenario == "dtype":
        dist.all_reduce(torch.ones(4))
        dist.all_reduce(torch.ones(4, dtype=torch.float64 if rank else torch.float32))  # the logged loss's dtype
        return
    grad = torch.ones(8)
    for step in range(5):
        dist.all_reduce(grad)  # the gradient all-reduce
        if not (scenario == "skip" and empty_batch(rank, step)):
            dist.all_reduce(torch.ones(1))  # the loss sum, skipped on an empty batch
        if scenario == "shape" and step == 2:
            dist.all_reduce(torch.ones(2, 4) if rank == 0 else torch.ones(8))  # same bytes, another shape
        dist.broadcast(torch.zeros(3), src=0)
    if scenario == "healthy":  # two DDP steps: their bucketed gradient all-reduces, DDP's own C++ path
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
        for _ in range(2):
            model(torch.ones(3, 4)).sum().backward()  # DDP's gradient all-reduce
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank} done after {recorder.dumps} dump(s)", flush=True)


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
