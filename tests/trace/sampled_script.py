"""A NaN written into an embedding row no later batch reads, at a step the watch pass may not check.

Usage: python sampled_script.py [STEPS]. Plain SGD on an Embedding(10, 4) + Linear(4, 1) model; batches use tokens
0-4 only. At step 25 the loss gains a term that is 0 in the forward and NaN in the backward for row 9 alone
(d sqrt(|x|) at x = 0 is inf, times |x|'s derivative 0): SGD writes the NaN into row 9, which no forward reads
again, so the loss stays finite to the end.
"""

import sys

import torch
from torch import nn

torch.manual_seed(0)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
emb, head = nn.Embedding(10, 4), nn.Linear(4, 1)
opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.1)
tokens, target = torch.randint(0, 5, (16,)), torch.randn(16, 1)
for step in range(steps):
    loss = nn.functional.mse_loss(head(emb(tokens)), target)
    if step == 25:
        loss = loss + (emb.weight[9] * 0).abs().sqrt().sum()  # NAN IN BACKWARD
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}, row 9 finite: {bool(emb.weight[9].isfinite().all())}")
