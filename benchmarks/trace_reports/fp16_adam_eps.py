"""An fp16 model trained with AdamW's default eps (jinxixiang/magic_animate_unofficial#6).

eps = 1e-8 rounds to 0 in fp16: a parameter whose second moment is 0 gets 0/0 in the update.
Own script: a small fp16 MLP; one input feature is always 0, so its weights get zero gradients.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)).half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(32, 8).half()
x[:, 3] = 0
y = torch.randn(32, 1).half()
for step in range(10):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item())
