"""Per-batch standardisation (x - mean) / std where the last batch holds one sample (drop_last=False).

The unbiased std (or var) of one value is 0/0 = NaN (karpathy/makemore#22: a hand-written batch norm on a batch of
one; pytorch/pytorch#1381). Own script with a DataLoader over 33 samples, batch 8.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(33, 5), torch.randn(33, 1))
loader = DataLoader(data, batch_size=8, shuffle=False)
model = nn.Linear(5, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step, (x, y) in enumerate(loader):
    opt.zero_grad()
    x = (x - x.mean(0)) / x.std(0)
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())
