"""The injector extension point: apply a fault to a running workload, then revert it."""

from __future__ import annotations

import abc
from typing import Any, Callable, ClassVar, Protocol

from faultlib.errors import InjectionError

Address = tuple[str, int]
"""A TCP address: (host, port)."""

PointCallback = Callable[[str, dict[str, Any]], None]
"""Called as ``callback(point, attributes)`` each time the workload reaches a fault point."""


class FaultTarget(Protocol):
    """What an in-process injector acts on; :class:`faultlib.repro.ReproContext` offers one.

    Attributes:
        model: the workload's ``torch.nn.Module`` (or ``None`` before it is attached).
        step: the training/serving step in progress (``None`` outside a step).
        attempt: which attempt of the phase this process is, 1-based (the runner restarts a
            phase killed by a signal when ``repro.restarts`` allows it).

    Injectors call the methods below from :meth:`Injector.apply`, never later.
    """

    model: Any
    step: int | None
    attempt: int

    def subscribe(self, point: str, callback: PointCallback) -> None:
        """Call ``callback`` whenever the workload reaches the named fault point
        (``step`` at the start of every step, ``checkpoint.write`` mid-write, ...)."""

    def reroute(self, endpoint: str, resolver: Callable[[Address], Address]) -> None:
        """Send the workload's connections to the named endpoint through ``resolver``:
        it receives the real address and returns the one to connect to (a proxy)."""

    def record_fault(self, injector: str, **attributes: Any) -> None:
        """Write a ``faultlib.fault`` span and a log record now (before a kill, say)."""


class Injector(abc.ABC):
    """Base class of every fault shim.

    Subclasses set ``name`` (the registry key a case names), ``summary`` (one line)
    and ``params_schema`` (a closed JSON Schema object for their parameters) and
    implement :meth:`apply` and :meth:`revert`. Parameters are validated by the
    registry before anything runs; ``__init__`` receives them as keywords.

    Call order: ``apply`` once, then ``revert`` once; ``revert`` must be safe to call
    after a failed ``apply``.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    params_schema: ClassVar[dict[str, Any]] = {"type": "object", "additionalProperties": False}

    def __init__(self, **params: Any) -> None:
        self.params = params
        self._applied = False

    @abc.abstractmethod
    def apply(self, target: FaultTarget) -> None:
        """Install the fault on ``target``; raises :class:`InjectionError` if it cannot."""

    @abc.abstractmethod
    def revert(self) -> None:
        """Remove every trace of the fault."""

    def active_at(self, step: int | None) -> bool:
        """Whether the fault acts at ``step``; used to label evidence windows. Default: always."""
        return self._applied


class WindowedInjector(Injector):
    """An injector that acts on a window of steps ``[start_step, start_step + steps)`` through one
    torch hook (its handle in ``self._handle``, removed by :meth:`revert`).

    Subclasses build ``params_schema`` with :meth:`schema`, which adds ``start_step`` (required,
    int >= 0) and ``steps`` (int >= 1, default 1) to their own properties.
    """

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.start_step = int(params["start_step"])
        self.stop_step = self.start_step + int(params.get("steps", 1))
        self._handle: Any = None
        self.hits = 0  # times the fault acted

    @staticmethod
    def schema(required: list[str], **properties: dict) -> dict[str, Any]:
        """A closed params schema: ``properties`` plus the step window."""
        return {"type": "object", "additionalProperties": False, "required": [*required, "start_step"],
                "properties": {**properties, "start_step": {"type": "integer", "minimum": 0},
                               "steps": {"type": "integer", "minimum": 1, "default": 1}}}

    def active_at(self, step: int | None) -> bool:
        return step is not None and self.start_step <= step < self.stop_step

    def revert(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


class InjectorSet:
    """The injectors of one run phase, applied and reverted together.

    The control phase holds an empty set, so the same repro script serves both phases.
    """

    def __init__(self, injectors: list[Injector]):
        self.injectors = injectors
        self._applied: list[Injector] = []

    def __bool__(self) -> bool:
        return bool(self.injectors)

    def __iter__(self):
        return iter(self.injectors)

    def apply(self, target: FaultTarget) -> None:
        if self._applied:
            raise InjectionError("faults already applied: call revert() before applying again")
        for injector in self.injectors:
            injector.apply(target)
            injector._applied = True
            self._applied.append(injector)

    def revert(self) -> None:
        while self._applied:
            injector = self._applied.pop()
            injector.revert()
            injector._applied = False

    def active_at(self, step: int | None) -> bool:
        return any(i.active_at(step) for i in self._applied)

    def boundaries(self) -> frozenset[int]:
        """The step indices where the fault window changes (each step window's first step and the step
        after its last), applied or not: the control phase snapshots its metrics at the same steps."""
        return frozenset(step for i in self.injectors for step in (getattr(i, "start_step", None),
                                                                   getattr(i, "stop_step", None)) if step is not None)

    def window(self, step: int | None) -> str:
        """``before``, ``during`` or ``after`` the fault at ``step`` (``none`` without faults)."""
        if not self._applied:
            return "none"
        if self.active_at(step):
            return "during"
        starts = [getattr(i, "start_step", None) for i in self._applied]
        starts = [s for s in starts if s is not None]
        if starts and step is not None and step < min(starts):
            return "before"
        return "after" if starts else "during"
