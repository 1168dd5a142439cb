"""A hand-written L2 distance, sqrt(sum(d**2)), between two equal embeddings (pytorch/pytorch#2421).

The forward value is 0 and finite; the backward of sqrt at 0 is inf, times 0 gives NaN gradients.
Own script: a metric-learning loss where an anchor is paired with itself.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
emb = nn.Embedding(10, 4)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
pairs = [(1, 2), (3, 4), (5, 5), (6, 7)]
for step in range(8):
    a, b = pairs[step % len(pairs)]
    opt.zero_grad()
    d = emb.weight[a] - emb.weight[b]
    dist = (d ** 2).sum().sqrt()
    loss = torch.relu(1.0 - dist)
    loss.backward()
    opt.step()
    print(step, loss.item())
