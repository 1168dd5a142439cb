"""DataLoader worker faults: one sample that makes the worker loading it raise, or die by a signal.

The repro passes its dataset through the data fault point ``data.dataset`` before it builds the DataLoader::

    train_set = through(ctx, "data.dataset", train_set)      # faultlib.inject.data.through

``worker_kill`` wraps it (in the rank named by ``rank``, read from ``RANK``; the others are left alone) so
that loading dataset index ``index`` in a DataLoader worker process either raises (``action: raise``: the
decode error of a truncated file) or sends the worker itself ``signal`` (``action: kill``, SIGKILL by
default: what the kernel's OOM killer does to the process whose memory pushed the cgroup over its limit).
The fault is a property of the sample, as in production: every time a worker loads it, it fires again.
In the main process (``num_workers=0``) a kill would take the rank itself down, so ``kill`` fires only in
workers; ``raise`` fires everywhere.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from faultlib.inject.data import DataShim


class PoisonedSample:
    """A dataset whose sample ``index`` raises or kills the worker loading it (picklable: workers may be spawned)."""

    def __init__(self, inner: Any, index: int, action: str, signum: int):
        self.inner, self.index, self.action, self.signum = inner, index, action, signum

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __getitem__(self, index: int) -> Any:
        if index == self.index:
            from torch.utils.data import get_worker_info

            if self.action == "kill" and get_worker_info() is not None:
                os.kill(os.getpid(), self.signum)
            if self.action == "raise":
                raise OSError(f"image file is truncated (sample {index}: 37 bytes not processed)")
        return self.inner[index]


class WorkerKill(DataShim):
    """Make DataLoader workers of one rank raise on, or be killed by a signal on, one dataset index.

    Params:
        index (int): the dataset index (of the dataset passed through ``data.dataset``).
        action (str): ``kill`` (default: the worker sends itself ``signal``) or ``raise`` (an ``OSError``
            like PIL's "image file is truncated").
        signal (str): ``SIGKILL`` (default: the OOM killer), ``SIGBUS`` (/dev/shm exhausted), ``SIGSEGV``.
        rank (int): the rank whose workers fail (default 0; ignored outside a distributed world).
        source (str): the ``source=`` passed to ``through`` (default: any).
    """

    name = "worker_kill"
    summary = "a DataLoader worker of one rank raises on, or is SIGKILLed on, one dataset index"
    point = "data.dataset"
    params_schema = {
        "type": "object", "additionalProperties": False, "required": ["index"],
        "properties": {
            "index": {"type": "integer", "minimum": 0},
            "action": {"enum": ["kill", "raise"], "default": "kill"},
            "signal": {"enum": ["SIGKILL", "SIGBUS", "SIGSEGV"], "default": "SIGKILL"},
            "rank": {"type": "integer", "minimum": 0, "default": 0},
            "source": {"type": "string"},
        },
    }

    def matches(self, attributes: dict[str, Any]) -> bool:
        rank = os.environ.get("RANK")
        if rank is not None and int(rank) != int(self.params.get("rank", 0)):
            return False
        return super().matches(attributes)

    def transform(self, value: Any) -> tuple[Any, dict[str, Any]]:
        index, action = int(self.params["index"]), self.params.get("action", "kill")
        signame = self.params.get("signal", "SIGKILL")
        wrapped = PoisonedSample(value, index, action, int(signal.Signals[signame]))
        return wrapped, {"index": index, "action": action, "signal": signame if action == "kill" else None,
                         "rank": int(self.params.get("rank", 0))}
