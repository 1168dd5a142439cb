"""A tiny mixed-precision loop (CPU autocast float16 + torch.amp.GradScaler('cpu')) for `faultlib trace`.

Usage: python scaler_script.py clip_before|clip_after. ``clip_before`` clips the gradients while they are
still multiplied by the loss scale (no ``scaler.unscale_`` first); ``clip_after`` is the healthy order.
Every value stays finite in both.
"""

import sys

import torch
from torch import nn

mode = sys.argv[1]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)  # 65536 overflows fp16 here at step 0
step = scaler.step  # bound early, as some loops do: still audited
x, y = torch.randn(32, 8), torch.randn(32, 1)
for _ in range(4):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x).float(), y)
    scaler.scale(loss).backward()
    if mode == "clip_before":
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # CLIP SCALED
        scaler.unscale_(optimizer)
    else:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # CLIP UNSCALED
    step(optimizer)
    scaler.update()
print(f"loss {loss.item():.4f}")
