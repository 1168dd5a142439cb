"""A non-finite value born two modules deep, at a step whose output check the watch pass may defer.

Usage: python nested_script.py [STEPS]. SGD on ``Net``: ``body`` is a Sequential of a Linear, a ``Gate`` (a Linear
and a log) and a Linear, so the log runs in ``body.1``, a nested module the watch pass does not track. At step 25
the gate's scale is 0: log(0) = -inf, the last Linear turns it into NaN, and the loss is NaN.
"""

import sys

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(8, 8)
        self.scale = 1.0

    def forward(self, x):
        return torch.log(self.inner(x).abs() * self.scale)  # LOG OF ZERO


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), Gate(), nn.Linear(8, 1))

    def forward(self, x):
        return self.body(x)


torch.manual_seed(0)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
for step in range(steps):
    net.body[1].scale = 0.0 if step == 25 else 1.0
    loss = nn.functional.mse_loss(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}")
