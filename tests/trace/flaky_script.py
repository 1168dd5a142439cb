"""A real training loop that does not run the same way twice: seeded from os.urandom, and the
step that makes a NaN (-log of a zero probability) changes from one run to the next.

Usage: python flaky_script.py COUNTER PLAN   (PLAN: the NaN step of each run, e.g. ``3,5`` or
``4,none``; COUNTER: a file counting the runs). Plain user code: faultlib is not imported here. No
optimizer (a hand-written update): trace counts each model call as a step, one per step here.
"""

import os
import sys

import torch
from torch import nn

counter, plan = sys.argv[1], sys.argv[2].split(",")
run = int(open(counter).read()) if os.path.exists(counter) else 0
with open(counter, "w") as fh:
    fh.write(str(run + 1))
nan_step = None if plan[run] == "none" else int(plan[run])
torch.manual_seed(int.from_bytes(os.urandom(4), "little"))

model = nn.Linear(6, 3)
for step in range(8):
    x, target = torch.randn(16, 6), torch.randint(0, 3, (16,))
    probs = torch.softmax(model(x), dim=-1)
    if step == nan_step:
        probs = probs * (torch.arange(3) != target[:, None])  # the true class's probability is 0
    loss = -torch.log(probs[torch.arange(16), target]).mean()
    model.zero_grad()
    loss.backward()
    with torch.no_grad():  # SGD by hand: torch.optim's first step imports torch._dynamo (1-3 s a run)
        for p in model.parameters():
            p -= 0.1 * p.grad
print("done")
