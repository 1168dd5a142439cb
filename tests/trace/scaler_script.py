"""A tiny mixed-precision loop (CPU autocast float16 + torch.amp.GradScaler('cpu')) for `faultlib trace`.

Usage: python scaler_script.py clip_before|clip_before_named|value_before_named|clip_after [INIT_SCALE].
``clip_before`` clips the gradients while they are still multiplied by the loss scale (no ``scaler.unscale_``
first); ``clip_before_named`` does the same through ``clip_grad_norm_`` imported by name at the top of the script,
before any GradScaler exists, and ``value_before_named`` through ``clip_grad_value_`` so imported;
``clip_after`` is the healthy order.
With INIT_SCALE 1024 every value stays finite; with GradScaler's default 65536 the fp16 backward overflows at
step 0, which GradScaler handles itself (it skips that step and halves the scale): healthy mixed precision.
"""

import sys

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_

mode = sys.argv[1]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
init_scale = float(sys.argv[2]) if len(sys.argv) > 2 else 65536.0
scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
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
    elif mode == "clip_before_named":
        clip_grad_norm_(model.parameters(), max_norm=1.0)  # CLIP NAMED
        scaler.unscale_(optimizer)
    elif mode == "value_before_named":
        clip_grad_value_(model.parameters(), 0.5)  # CLIP VALUE NAMED
        scaler.unscale_(optimizer)
    else:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # CLIP UNSCALED
    step(optimizer)
    scaler.update()
print(f"loss {loss.item():.4f}")
