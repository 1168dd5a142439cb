"""A 2-rank DDP world started with torch.multiprocessing.spawn from a plain `python spawn_script.py MODE` (tests):
MODE poison: rank 1's batch holds a NaN at step 2; alone: rank 1's NaN never reaches rank 0 (a separate model),
which waits in a barrier rank 1 never joins; poison_abort: poison, and rank 1's process aborts when it exits (as a
gloo thread still joinable at exit does, SIGABRT); clean: no fault."""

import atexit
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def train(rank, port, mode):
    torch.set_num_threads(1)
    if mode == "poison_abort" and rank == 1:
        atexit.register(os.abort)
    store = dist.TCPStore("127.0.0.1", port, 2, False)  # the parent's: bound before the ranks start
    dist.init_process_group("gloo", store=store, rank=rank, world_size=2)
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(rank + 1)
    for step in range(5):
        x, y = torch.randn(8, 4, generator=gen), torch.randn(8, 1, generator=gen)
        if mode in ("poison", "poison_abort") and rank == 1 and step == 2:
            x[0, 0] = float("nan")
        if mode == "alone":
            head = nn.Linear(4, 1)
            local = torch.optim.SGD(head.parameters(), lr=0.05)
            if rank == 1 and step == 2:
                x[0, 0] = float("nan")
            nn.functional.mse_loss(head(x), y).backward()
            local.step()
            dist.barrier()
            continue
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    # the ranks meet at a store this process binds on a port the OS picks: no port picked, released, then
    # bound by rank 0 seconds later (another test's world could take it meanwhile)
    server = dist.TCPStore("127.0.0.1", 0, None, True, wait_for_workers=False)
    mp.spawn(train, args=(server.port, sys.argv[1]), nprocs=2)
    print("spawned world done", flush=True)
