"""A fractional-norm (p=0.5) sparsity penalty on activations with exact zeros (pytorch/pytorch#44452).

ReLU outputs are exactly 0; the derivative of |x|^0.5 at 0 is infinite and NormBackward returns NaN.
Own script.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(16, 6), torch.randn(16, 1)
for step in range(5):
    opt.zero_grad()
    h = model[1](model[0](x))
    out = model[2](h)
    loss = ((out - y) ** 2).mean() + 1e-3 * h.norm(p=0.5)
    loss.backward()
    opt.step()
    print(step, loss.item())
