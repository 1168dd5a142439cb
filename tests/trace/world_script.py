"""A 2-rank DDP world for `faultlib trace -- torchrun ...` (tests): a tiny regression, seeded.

argv: MODE [STEP]. MODE: clean | poison (rank 1's batch holds a NaN at STEP) | log (rank 1 takes the log of a
negative number in its forward at STEP) | raise (rank 0 raises at STEP) | exit3 (rank 1 exits 3 at STEP).
"""

import sys

import torch
import torch.distributed as dist
from torch import nn

mode, bad_step = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2
torch.set_num_threads(1)
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, poison_log=False):
        h = torch.relu(self.hidden(x))
        if poison_log:
            h = torch.log(h - 10.0)  # every value is below 10: log of a negative number is NaN
        return self.out(h)


model = nn.parallel.DistributedDataParallel(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(rank + 1)
for step in range(6):
    x, y = torch.randn(16, 4, generator=gen), torch.randn(16, 1, generator=gen)
    if mode == "poison" and rank == 1 and step == bad_step:
        x[3, 1] = float("nan")
    if mode == "raise" and rank == 0 and step == bad_step:
        raise ValueError("bad config on rank 0")
    if mode == "exit3" and rank == 1 and step == bad_step:
        sys.exit(3)
    loss = nn.functional.mse_loss(model(x, poison_log=mode == "log" and rank == 1 and step == bad_step), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
dist.destroy_process_group()
print(f"rank {rank} done", flush=True)
