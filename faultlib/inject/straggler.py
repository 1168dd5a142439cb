"""Straggler faults: one rank of a distributed job gets a slow data path from a chosen step on.

The local twin of a node whose disk, network mount or CPU is slower than its peers' (Chaos Mesh's StressChaos
on that rank's pod): in synchronous data parallelism every other rank then waits for it in the next
collective. The cost is per sample, as a slow file system's or a decoder's is, so a mitigation that gives the
slow rank fewer samples (rebalanced shards) helps; a per-step cost would not.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from faultlib.inject.base import FaultTarget, Injector

POINT = "data.load"
"""The fault point a repro marks in its data phase: ``ctx.fault_point("data.load", step=S, samples=N)``."""


class RankSlowdown(Injector):
    """Make one rank's data phase ``ms_per_sample * samples`` ms slower from ``start_step`` on.

    The shim subscribes to the fault point ``data.load``; on the process whose ``RANK`` (set by torchrun and
    the Kubeflow training operator) equals ``rank`` it waits ``ms_per_sample`` per sample of the batch the
    repro is loading, for steps ``start_step <= step < start_step + steps`` (``steps`` omitted: to the end).
    Every other rank only labels its evidence windows. The first slowed step is recorded as a
    ``faultlib.fault`` span and a log line.

    Params:
        rank (int): the rank to slow.
        start_step (int): the first slowed step.
        steps (int): how many steps (default: every step from ``start_step`` on).
        ms_per_sample (number): added time per sample in ms (> 0).
        mode (str): ``sleep`` (default; the rank waits, as on a slow disk or network mount) or ``spin`` (the
            rank's CPU is busy, as a decoder under CPU contention is).
    """

    name = "rank_slowdown"
    summary = "slow one rank's data path (per sample, sleep or CPU spin) from a step on: a straggler"
    params_schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["rank", "start_step", "ms_per_sample"],
        "properties": {
            "rank": {"type": "integer", "minimum": 0},
            "start_step": {"type": "integer", "minimum": 0},
            "steps": {"type": "integer", "minimum": 1},
            "ms_per_sample": {"type": "number", "exclusiveMinimum": 0, "maximum": 10000},
            "mode": {"enum": ["sleep", "spin"], "default": "sleep"},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.rank = int(params["rank"])
        self.start_step = int(params["start_step"])
        self.stop_step = self.start_step + int(params["steps"]) if "steps" in params else None
        self.ms_per_sample = float(params["ms_per_sample"])
        self.mode: str = params.get("mode", "sleep")
        self._target: FaultTarget | None = None
        self.slowed_ms = 0.0  # total time added on this rank
        self.hits = 0  # slowed batches on this rank

    def active_at(self, step: int | None) -> bool:
        return step is not None and step >= self.start_step and (self.stop_step is None or step < self.stop_step)

    def apply(self, target: FaultTarget) -> None:
        self._target = target
        if int(os.environ.get("RANK", "-1")) == self.rank:
            target.subscribe(POINT, self._reached)

    def revert(self) -> None:
        self._target = None

    def _reached(self, point: str, attributes: dict[str, Any]) -> None:
        step = attributes.get("step")
        if self._target is None or not self.active_at(step):
            return
        ms = self.ms_per_sample * int(attributes.get("samples", 1))
        if self.hits == 0:
            self._target.record_fault(self.name, point=point, step=step, rank=self.rank, mode=self.mode,
                                      ms_per_sample=self.ms_per_sample)
            print(f"faultlib: rank_slowdown: rank {self.rank} data path +{self.ms_per_sample:g} ms per sample "
                  f"({self.mode}) from step {step}", file=sys.stderr, flush=True)
        self.hits += 1
        self.slowed_ms += ms
        if self.mode == "sleep":
            time.sleep(ms / 1000)
        else:
            end = time.perf_counter() + ms / 1000
            while time.perf_counter() < end:
                pass
