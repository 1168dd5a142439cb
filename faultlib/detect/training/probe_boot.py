"""Child side of the resume-equivalence probe: record every optimizer step of a script, then run it.

Started as ``python -m faultlib.detect.training.probe_boot SCRIPT ARGS...`` with ``FAULTLIB_PROBE_OUT``
(a JSON Lines file). Global optimizer step hooks (``torch.optim.optimizer.register_optimizer_step_pre_hook``
/ ``..._post_hook``, the ones ``faultlib trace`` uses) write one line per step of the first optimizer the
script steps: ``{"i", "lr", "loss_scale", "loss", "data", "params_before", "params", "t"}``, where
``data`` is a BLAKE2b-64 digest of the first tensor the step's first model call with autograd enabled
received (the training batch, not an evaluation batch under ``no_grad``),
``params_before``/``params`` digests of the optimizer's parameters before and after the step, ``loss``
the value of the last ``backward()`` root before the step and ``loss_scale`` the newest GradScaler's scale.
Cost per step: one hash of the parameters' bytes (twice) and of the first batch, one ``.item()``.

``FAULTLIB_PROBE_END`` (an integer): the run is held (blocked until the probe kills it) before the step that would
go past it, so the probe never counts more steps than it asked for (polling every 50 ms, it counted 13 steps of a
fast script asked for 12 on a loaded 2-core machine; more on a faster one). The end counts from the start of
training; with ``FAULTLIB_PROBE_ALIGN`` (the straight run's JSON Lines), a resumed run finds where it starts from
its parameters before its first step (the straight step after which they were equal) and is held at the straight
run's end.
"""

from __future__ import annotations

import hashlib
import json
import os
import runpy
import sys
import time
import weakref
from typing import Any


HOLD_S = 10.0
"""How long the preempted run pauses at the stop step for the probe to see its checkpoint (seconds)."""


def digest(tensors) -> str:
    h = hashlib.blake2b(digest_size=8)
    for t in tensors:
        h.update(t.detach().cpu().contiguous().reshape(-1).view(-1).numpy().tobytes())
    return h.hexdigest()


class Recorder:
    """The hooks (see the module docstring)."""

    def __init__(self, out: str):
        import torch

        self.torch = torch
        self.file = open(out, "a", buffering=1, encoding="utf-8")
        self.optimizer: Any = None
        self.steps = 0
        self.loss: float | None = None
        self.data: str | None = None
        self.before: str | None = None
        self.scalers: list = []
        hold = os.environ.get("FAULTLIB_PROBE_HOLD_AT")
        self.hold_at = int(hold) if hold else None
        end = os.environ.get("FAULTLIB_PROBE_END")
        self.end = int(end) if end else None
        self.align = os.environ.get("FAULTLIB_PROBE_ALIGN")
        self._patch()

    def _patch(self) -> None:
        torch = self.torch
        from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

        register_optimizer_step_pre_hook(self._pre)
        register_optimizer_step_post_hook(self._post)
        torch.nn.modules.module.register_module_forward_pre_hook(self._forward)
        backward = torch.Tensor.backward
        recorder = self

        def recording_backward(tensor, *args, **kwargs):
            if tensor.numel() == 1:
                recorder.loss = float(tensor.detach().float())
            return backward(tensor, *args, **kwargs)

        torch.Tensor.backward = recording_backward
        init = torch.amp.GradScaler.__init__

        def scaler_init(scaler, *args, **kwargs):
            init(scaler, *args, **kwargs)
            recorder.scalers.append(weakref.ref(scaler))

        torch.amp.GradScaler.__init__ = scaler_init

    def _params(self, optimizer) -> list:
        return [p for g in optimizer.param_groups for p in g["params"]]

    def _forward(self, module, args) -> None:
        # the training batch: the first call with autograd on (an evaluation under no_grad before the step, as in
        # llama2.c's estimate_loss, would otherwise stand for the batch)
        if self.data is None and args and isinstance(args[0], self.torch.Tensor) and self.torch.is_grad_enabled():
            self.data = digest([args[0]])

    def _pre(self, optimizer, args, kwargs) -> None:
        if self.optimizer is None:
            self.optimizer = weakref.ref(optimizer)
        if self.optimizer() is optimizer:
            if self.hold_at is not None and self.steps == self.hold_at:
                self._hold()
            self.before = digest(self._params(optimizer))
            if self.steps == 0 and self.end is not None and self.align:
                self.end -= self._start(self.before)
            if self.end is not None and self.steps >= self.end:
                self._stop()

    def _start(self, before: str) -> int:
        """Steps of the straight run before the one this run starts with (0 when its parameters are no
        straight step's: the probe then waits for the whole count, as it did before)."""
        with open(self.align, encoding="utf-8") as f:
            after = {line["params"]: line["i"] + 1 for line in map(json.loads, filter(str.strip, f))}
        return after.get(before, 0)

    def _stop(self) -> None:
        """Hold here (the step is not taken) until the probe, which has seen every step it asked for, kills
        this process group."""
        self.file.flush()
        while True:
            time.sleep(1.0)

    def _hold(self) -> None:
        """Before step ``hold_at`` (0-based, so after ``hold_at`` steps and whatever the script saved after the
        last of them), wait up to ``HOLD_S`` for the probe to see the checkpoint and kill this process group;
        then go on (the script may save its checkpoint later). Without the pause a fast script runs past the
        stop step between two polls."""
        self.file.flush()
        time.sleep(HOLD_S)

    def _post(self, optimizer, args, kwargs) -> None:
        if self.optimizer is None or self.optimizer() is not optimizer:
            return
        scaler = next((s() for s in reversed(self.scalers) if s() is not None), None)
        scale = None
        if scaler is not None and scaler.is_enabled() and getattr(scaler, "_scale", None) is not None:
            scale = float(scaler.get_scale())
        line = {"i": self.steps, "lr": float(optimizer.param_groups[0]["lr"]), "loss_scale": scale,
                "loss": self.loss, "data": self.data, "params_before": self.before,
                "params": digest(self._params(optimizer)), "t": time.time()}
        self.file.write(json.dumps(line) + "\n")
        self.steps += 1
        self.data, self.loss = None, None


def main(argv: list[str]) -> int:
    out = os.environ["FAULTLIB_PROBE_OUT"]
    Recorder(out)
    script, *args = argv
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
