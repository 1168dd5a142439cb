"""A small real regression script fed by a DataLoader with two worker processes.

Usage: python regress_script.py CAUSE   (CAUSE: healthy; nan_input: a NaN in sample 21, in the
batch of step 2; nan_target: a NaN in the target of sample 21; norm_at_zero: sample 16, the first
of step 2, has a zero input and a zero target, so the distance loss's backward is 0/0).
Plain user code: faultlib is not imported here.
"""

import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from tiny_model import build, distance_loss

CAUSE = sys.argv[1]
torch.manual_seed(0)
x, y = torch.randn(64, 4), torch.randn(64, 2)
if CAUSE == "nan_input":
    x[21, 2] = float("nan")
elif CAUSE == "nan_target":
    y[21, 1] = float("nan")
elif CAUSE == "norm_at_zero":
    x[16], y[16] = 0.0, 0.0
loader = DataLoader(TensorDataset(x, y), batch_size=8, num_workers=2)
model = build()
# torch.optim where the NaN is a gradient (found at optimizer.step()); the others update by hand: torch.optim's first
# use imports torch._dynamo (about 1.5 s of CPU a process) and their value is born in the input, not the update
optimizer = torch.optim.SGD(model.parameters(), lr=0.01) if CAUSE == "norm_at_zero" else None
for step, (xb, yb) in enumerate(loader):
    loss = distance_loss(model(xb), yb)
    (optimizer or model).zero_grad()
    loss.backward()
    if optimizer is not None:
        optimizer.step()
    else:
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.01 * p.grad
    print(f"step {step} loss {loss.item():.4f}", flush=True)
print("done")
