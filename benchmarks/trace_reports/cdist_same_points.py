"""Pairwise distances with torch.cdist between a batch and itself (pytorch/pytorch#37154, #37237).

The diagonal is a zero distance; its gradient was NaN in torch 1.5. Own script: a contrastive loss over
all pairs including the diagonal.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(6, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 6)
for step in range(5):
    opt.zero_grad()
    z = net(x)
    d = torch.cdist(z, z)
    loss = torch.exp(-d).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())
