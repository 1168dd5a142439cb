"""Non-finite values of kinds public bug reports describe, for ``faultlib trace`` (test_kinds.py).

``python kinds_script.py CAUSE``:
* ``std_first``: each batch is standardised before the model, (x - mean) / std; the last batch of a 9-row dataset
  in batches of 4 holds one row, whose unbiased std is 0/0.
* ``indexed_sqrt``: rows of an embedding table are indexed (the module is never called) and their distance is
  sqrt(sum(d**2)); at step 2 both rows are the same: the forward is 0, the backward of sqrt at 0 is inf.
* ``scaler_extra_step``: autocast + GradScaler with a loss scale that overflows the fp16 backward, and a second
  ``opt.step()`` after ``scaler.step(opt)``: the scaler skips the overflow, the extra step applies it.
* ``scaler_ok``: the same without the extra step (the scaler's overflow is handled: healthy), plus a model with a
  causal -inf mask buffer (non-finite on purpose, from its construction).
* ``ema_buffer``: a running-average buffer renormalised by a count that is 0 under no_grad: inf in the buffer,
  while every output, gradient and loss stays finite.
* ``hidden_weights``: a ``torch.where`` that discards the sqrt of negatives (its backward is NaN there) and SGD by
  hand (no optimizer step to check): the weights go NaN while the where keeps every output and loss finite.
"""

import sys

import torch
import torch.nn as nn

CAUSE = sys.argv[1]
torch.manual_seed(0)

if CAUSE == "std_first":
    x_all, y_all = torch.randn(9, 3), torch.randn(9, 1)
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        x, y = x_all[4 * step:4 * step + 4], y_all[4 * step:4 * step + 4]
        opt.zero_grad()
        x = (x - x.mean(0)) / x.std(0)  # standardise the batch
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()

elif CAUSE == "indexed_sqrt":
    table = nn.Embedding(6, 3)
    opt = torch.optim.SGD(table.parameters(), lr=0.1)
    for step, (a, b) in enumerate([(0, 1), (2, 3), (4, 4), (1, 5)]):
        opt.zero_grad()
        d = table.weight[a] - table.weight[b]
        loss = torch.relu(1.0 - (d * d).sum().sqrt())  # hinge on the distance
        loss.backward()
        opt.step()

elif CAUSE in ("scaler_extra_step", "scaler_ok"):
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 40)
    x, y = torch.randn(16, 8), torch.randint(0, 2, (16,))
    for step in range(4):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if CAUSE == "scaler_extra_step":
            opt.step()  # extra step
    if CAUSE == "scaler_ok":
        class Masked(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("mask", torch.full((4, 4), float("-inf")).triu(1))
                self.proj = nn.Linear(4, 4)

            def forward(self, s):
                return torch.softmax(self.proj(s) + self.mask, -1)

        att = Masked()
        opt2 = torch.optim.SGD(att.parameters(), lr=0.1)
        for step in range(2):
            opt2.zero_grad()
            att(torch.randn(4, 4)).pow(2).sum().backward()
            opt2.step()

elif CAUSE == "ema_buffer":
    class Centroids(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(3))
            self.register_buffer("total", torch.randn(3, 2))
            self.register_buffer("centroid", torch.zeros(3, 2))

        def forward(self, z):
            idx = torch.zeros(len(z), dtype=torch.long)  # every point joins centroid 0
            with torch.no_grad():
                onehot = nn.functional.one_hot(idx, 3).float()
                self.count.mul_(0.9).add_(onehot.sum(0), alpha=0.1)
                self.total.mul_(0.9).add_(onehot.t() @ z, alpha=0.1)
                self.centroid.copy_(self.total / self.count[:, None])  # renormalise
            return z - self.centroid[idx]

    enc, cents = nn.Linear(2, 2), Centroids()
    opt = torch.optim.SGD(enc.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        cents(enc(torch.randn(5, 2))).pow(2).mean().backward()
        opt.step()
elif CAUSE == "hidden_weights":
    class Gated(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 4)

        def forward(self, x):
            h = self.proj(x)
            return torch.where(h > 0, torch.sqrt(h), torch.zeros_like(h))  # sqrt of negatives, discarded

    net = Gated()
    for step in range(3):
        net.zero_grad()
        net(torch.randn(8, 4)).sum().backward()
        with torch.no_grad():  # SGD by hand
            for p in net.parameters():
                p -= 0.1 * p.grad
print("done")
