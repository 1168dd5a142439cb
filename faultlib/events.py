"""Run lifecycle events. The runner publishes them; the progress display, logging and
anything else subscribe by subclassing :class:`RunListener` (every method is a no-op)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faultlib.cases import Case
    from faultlib.record import PhaseResult, RunRecord


class RunListener:
    """Override what you need. Order: case_loaded, run_started, (phase_started, step*,
    (phase_restarted, step*)*, phase_finished) per phase, assertions_started, assertions_finished,
    archived, run_finished. ``phase_restarted(phase, attempt, reason)``: attempt ``attempt`` of the
    phase ended by ``reason`` (a signal name such as ``SIGKILL``) and attempt + 1 starts next."""

    def case_loaded(self, case: "Case") -> None: ...
    def run_started(self, run_id: str, run_dir: str) -> None: ...
    def phase_started(self, phase: str, faults: list[str]) -> None: ...
    def step(self, phase: str, step: int, total: int | None) -> None: ...
    def phase_restarted(self, phase: str, attempt: int, reason: str) -> None: ...
    def phase_finished(self, phase: str, result: "PhaseResult") -> None: ...
    def assertions_started(self, count: int) -> None: ...
    def assertions_finished(self, passed: list[str], failed: list[str]) -> None: ...
    def archived(self, uri: str) -> None: ...
    def run_finished(self, record: "RunRecord") -> None: ...


class EventBus(RunListener):
    """Fans every event out to each subscribed listener, in subscription order."""

    def __init__(self, *listeners: RunListener):
        self.listeners = list(listeners)

    def subscribe(self, listener: RunListener) -> None:
        self.listeners.append(listener)

    def __getattribute__(self, name: str):
        if name.startswith("_") or name in ("listeners", "subscribe") or not hasattr(RunListener, name):
            return object.__getattribute__(self, name)

        def fan_out(*args, **kwargs):
            for listener in object.__getattribute__(self, "listeners"):
                getattr(listener, name)(*args, **kwargs)

        return fan_out
