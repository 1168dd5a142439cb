"""A conv output beyond fp16's range becomes -inf, GroupNorm then makes NaN (NVIDIA/apex#180).

Own script: fp16 conv + GroupNorm; inputs up to 4000 give conv outputs past 65504.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(64, 32, 1, bias=False), nn.GroupNorm(4, 32), nn.ReLU(),
                      nn.Flatten(), nn.Linear(32 * 4 * 4, 1)).half()
with torch.no_grad():
    model[0].weight.uniform_(0.5, 1.0)
x = (torch.rand(2, 64, 4, 4) * 4000).half()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(3):
    opt.zero_grad()
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())
