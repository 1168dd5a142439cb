"""A small real training/inference script with one selectable way to make a NaN or inf.

Usage: python nan_script.py CAUSE   (CAUSE: healthy, unsafe_where, sqrt_at_zero, masked_softmax,
log_of_zero, fp16_overflow, custom_function, inference_fp16). Deliberately plain user code:
faultlib is not imported here.

Only the causes whose first NaN is a gradient (sqrt_at_zero, custom_function, and unsafe_where: the discarded
sqrt's backward; the where keeps it out of every output) train with torch.optim: trace finds them at
``optimizer.step()``, and sqrt_at_zero's dump holds the optimizer's state. The others update by hand: torch.optim's
first use imports torch._dynamo (about 1.6 s of CPU per process, twice per trace), and what they check is the
forward op, not the optimizer (one model call per step: trace counts the same steps).
"""

import os
import sys

import numpy as np
import torch
from torch import nn

CAUSE = sys.argv[1]
torch.manual_seed(0)
if os.environ.get("DIGITS_NPZ"):  # the tests cache digits once, to skip importing scikit-learn per run
    data = np.load(os.environ["DIGITS_NPZ"])
    x, y = data["x"], data["y"]
else:
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
x = torch.tensor(x / 16.0, dtype=torch.float32)
y = torch.tensor(y)


class Gate(nn.Module):
    def forward(self, h):
        if CAUSE == "unsafe_where":
            return torch.where(h > 0, torch.sqrt(h), torch.zeros_like(h))  # sqrt of negatives, then discarded
        return torch.relu(h)


class RowNorm(nn.Module):
    def forward(self, h):
        if CAUSE == "sqrt_at_zero":
            h = h * (torch.arange(h.shape[0]).unsqueeze(1) > 0)  # first row all zero
            return h / (h.pow(2).sum(-1, keepdim=True).sqrt() + 1e-6)
        return h


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Linear(dim, dim)

    def forward(self, h):
        scores = self.query(h) @ h.T / h.shape[1] ** 0.5
        mask = torch.zeros_like(scores, dtype=torch.bool)
        if CAUSE == "masked_softmax":
            mask[0] = True  # a fully masked row
        scores = scores.masked_fill(mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ h


class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, h):
        out = torch.exp(h)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out / (out - out)  # a broken hand-written backward: 0/0


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 32), Gate())
        self.norm = RowNorm()
        self.attention = Attention(32)
        self.head = nn.Linear(32, 10)

    def forward(self, inputs):
        h = self.norm(self.encoder(inputs))
        h = self.attention(h)
        if CAUSE == "custom_function":
            h = ClampedExp.apply(h * 0.01)
        return self.head(h)


model = Net()
if CAUSE == "inference_fp16":
    model = model.half().eval()
    with torch.no_grad():
        for start in range(0, 256, 64):
            batch = x[start:start + 64].half()
            if start == 128:
                batch = batch * 30000  # out of fp16 range in the first Linear: inf, then NaN
            print("logits", model(batch).float().abs().max().item())
    sys.exit(0)

GRADIENT = CAUSE in ("sqrt_at_zero", "custom_function", "unsafe_where")  # found at optimizer.step()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05) if GRADIENT else None
for step in range(12):
    idx = torch.arange(step * 32, step * 32 + 32)
    inputs = x[idx]
    if CAUSE == "fp16_overflow" and step == 5:
        inputs = inputs * 1e5  # an unnormalised batch
    if CAUSE == "fp16_overflow":
        with torch.autocast("cpu", dtype=torch.float16):
            logits = model(inputs)
    else:
        logits = model(inputs)
    probs = torch.softmax(logits.float(), dim=-1)
    if CAUSE == "log_of_zero" and step == 3:
        probs = probs * (torch.arange(10) != y[idx].unsqueeze(1))  # the true class's probability is 0
    loss = -torch.log(probs[torch.arange(32), y[idx]]).mean()  # hand-written cross entropy
    if optimizer is not None:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    else:
        model.zero_grad()
        loss.backward()
        with torch.no_grad():  # SGD by hand
            for p in model.parameters():
                p -= 0.05 * p.grad
print("done", loss.item())
