"""GradScaler with a second optimizer.step() after scaler.step() (FlyEgle/imageclassification#1).

The scaler skips a step whose scaled gradients overflowed; the extra plain step then applies them anyway.
Own script: a small classifier under CPU autocast (fp16) with a large initial loss scale.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 40)
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
for step in range(20):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.step()  # the bug: a second step outside the scaler
    print(step, loss.item())
