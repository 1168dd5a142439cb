"""Process faults: kill the repro's own process group at an exact point of the workload.

The local twin of Chaos Mesh's PodChaos ``pod-kill`` (with ``gracePeriod: 0``) and of a
spot-instance preemption: the process gets no chance to finish what it is doing. Unlike a
timer, the kill lands at a named fault point (``ctx.step`` or ``ctx.fault_point(...)``) so a
case can prove what happens when it lands mid-step or mid-checkpoint-write.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from faultlib.inject.base import FaultTarget, Injector

POINTS = ("step", "checkpoint.write")
"""Fault points this shim can kill at: ``step`` (start of every ``ctx.step``, before its work) and
``checkpoint.write`` (called by the repro after part of a checkpoint is written, before it is published)."""

SIGNALS = ("SIGKILL", "SIGTERM", "SIGINT")


class ProcessKill(Injector):
    """Send ``signal`` to the repro's process group when the workload reaches a fault point.

    The shim subscribes to the point named by ``during`` and fires the first time it is
    reached with ``step == at_step`` on attempt ``attempt`` of the phase. Before the signal
    it records a ``faultlib.fault`` span and a log line (both on disk at once) and a line on
    stderr. The runner restarts the phase when ``repro.restarts`` allows it; the restarted
    process is attempt ``attempt + 1``, on which this shim never fires again.

    The whole process group is signalled (the local backend starts each phase as the leader of
    its own group, so data-loader workers die with the trainer, as in a pod kill). A process that
    is not the leader of its group (run by hand from a shell script) signals only itself, so it
    never takes its parent down.

    Params:
        at_step (int): the step at which to kill.
        during (str): ``step`` (default) or ``checkpoint.write``.
        signal (str): ``SIGKILL`` (default), ``SIGTERM`` or ``SIGINT``.
        attempt (int): the attempt of the phase on which to fire, default 1.
    """

    name = "process_kill"
    summary = "signal (SIGKILL) the repro's process group at a step or mid-checkpoint-write"
    params_schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["at_step"],
        "properties": {
            "at_step": {"type": "integer", "minimum": 0},
            "during": {"enum": list(POINTS), "default": "step"},
            "signal": {"enum": list(SIGNALS), "default": "SIGKILL"},
            "attempt": {"type": "integer", "minimum": 1, "default": 1},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.at_step = int(params["at_step"])
        self.start_step = self.at_step  # labels evidence windows before/during/after the kill
        self.during: str = params.get("during", "step")
        self.signal = signal.Signals[params.get("signal", "SIGKILL")]
        self.attempt = int(params.get("attempt", 1))
        self._target: FaultTarget | None = None
        self.fired = False

    def active_at(self, step: int | None) -> bool:
        return step == self.at_step

    def apply(self, target: FaultTarget) -> None:
        self._target = target
        target.subscribe(self.during, self._reached)

    def _reached(self, point: str, attributes: dict[str, Any]) -> None:
        target = self._target
        if self.fired or target is None or target.attempt != self.attempt or attributes.get("step") != self.at_step:
            return
        self.fired = True
        leader = os.getpgrp() == os.getpid()
        target.record_fault(self.name, point=point, step=self.at_step, signal=self.signal.name,
                            scope="process_group" if leader else "process",
                            **{k: v for k, v in attributes.items() if k != "step"})
        print(f"faultlib: process_kill: {self.signal.name} at fault point {point!r}, step {self.at_step} "
              f"(attempt {target.attempt})", file=sys.stderr, flush=True)
        sys.stdout.flush()
        if leader:
            os.killpg(os.getpgrp(), self.signal)
        else:
            os.kill(os.getpid(), self.signal)

    def revert(self) -> None:
        self._target = None
