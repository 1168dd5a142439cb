"""A tiny mixed-precision loop (CPU autocast float16 + torch.amp.GradScaler('cpu')) for `faultlib trace`.

Usage: python scaler_script.py MODE [INIT_SCALE], MODE one of clip_before, clip_before_named,
value_before_named, clip_after, no_scale, fp16, eps. ``clip_before`` clips the gradients while they are still
multiplied by the loss scale (no ``scaler.unscale_`` first); ``clip_before_named`` does the same through
``clip_grad_norm_`` imported by name at the top of the script, before any GradScaler exists, and
``value_before_named`` through ``clip_grad_value_`` so imported; ``clip_after`` is the healthy order;
``no_scale`` makes ``scaler.scale(loss)`` but backwards through the raw loss, then ``scaler.step``; ``fp16``
trains float16 parameters under the GradScaler (its ``unscale_`` refuses their gradients: the script dies);
``eps`` trains float16 parameters with Adam's eps 1e-8 (0 in float16) under a disabled GradScaler (a
bfloat16-style switch).
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
x, y = torch.randn(32, 8), torch.randn(32, 1)
if mode in ("fp16", "eps"):
    model, x = model.half(), x.half()
if mode == "eps":
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-8)  # ADAM EPS
else:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
init_scale = float(sys.argv[2]) if len(sys.argv) > 2 else 65536.0
scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, enabled=mode != "eps")
step = scaler.step  # bound early, as some loops do: still audited
for _ in range(4):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x).float(), y)
    if mode == "no_scale":
        scaler.scale(loss)  # the scaled loss is made, but the raw loss is the one backwarded
        loss.backward()
        step(optimizer)  # STEP UNSCALED
        scaler.update()
        continue
    scaler.scale(loss).backward()
    if mode in ("fp16", "eps"):
        step(optimizer)  # STEP HALF
    elif mode == "clip_before":
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
    if mode in ("clip_before", "clip_after"):
        step(optimizer)
    scaler.update()
print(f"loss {loss.item():.4f}")
