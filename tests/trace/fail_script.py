"""Real torch training steps (forward, backward, a hand-written SGD update), then one way for a script to end.

No torch.optim: its first step imports torch._dynamo (1-3 s per process), and what these tests check is
how the script ends, not the optimizer (without one, trace counts each model call as a step: one per step here).

Usage: python fail_script.py MODE   (MODE: healthy, raise, exit_1, exit_3, exit_message, os_exit_5,
keyboard_interrupt, sigkill, sleep, nan_then_raise). Plain user code: faultlib is not imported.
"""

import os
import signal
import sys
import time

import torch
from torch import nn

MODE = sys.argv[1]
torch.manual_seed(0)
model = nn.Linear(3, 1)
for step in range(3):
    x = torch.randn(4, 3)
    loss = model(x).pow(2).mean()
    if MODE == "nan_then_raise" and step == 1:
        loss = loss * float("nan")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
print("trained", flush=True)

if MODE == "raise" or MODE == "nan_then_raise":
    raise ValueError("bad config [/oops]")  # not rich markup: printed as is
if MODE == "exit_1":
    sys.exit(1)
if MODE == "exit_3":
    sys.exit(3)
if MODE == "exit_message":
    sys.exit("config file missing")
if MODE == "os_exit_5":
    os._exit(5)
if MODE == "keyboard_interrupt":
    raise KeyboardInterrupt
if MODE == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
if MODE == "sleep":
    print("ready", flush=True)
    time.sleep(120)
print("done")
