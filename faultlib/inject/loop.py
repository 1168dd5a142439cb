"""Event-loop faults: work meant for an executor runs inline, on the event loop's own thread.

The classic way an asyncio service loses its latency: a change (a refactor, a "simplification",
a library upgrade that made a call synchronous) moves a slow synchronous call, such as model
inference, from ``loop.run_in_executor(executor, fn)`` onto the loop, and every other request,
health checks included, waits behind it. The ``inline_executor`` shim reproduces exactly that
without editing the service: for a window of steps it swaps the attached service's executor for an
:class:`InlineExecutor`, whose ``submit`` runs the function at once in the calling thread (the
loop's, since ``run_in_executor`` calls ``submit`` there), and puts the real executor back after.
"""

from __future__ import annotations

import concurrent.futures
from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, WindowedInjector


class InlineExecutor(concurrent.futures.Executor):
    """An executor that runs each submitted call at once, in the thread that submits it.

    ``loop.run_in_executor(InlineExecutor(), fn, *args)`` therefore runs ``fn`` on the event loop
    and returns an already finished future: the call blocks the loop for its whole duration.
    """

    def submit(self, fn, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - delivered through the future, as a real executor does
            future.set_exception(exc)
        else:
            future.set_result(result)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


class InlineExecutorFault(WindowedInjector):
    """Run the attached service's executor work inline on its event loop, for a window of steps.

    At each step (fault point ``step``) the attached object's executor attribute holds an
    :class:`InlineExecutor` inside the window and the service's own executor outside it (before:
    the healthy service; after: the mitigation, work back in the executor).

    Params:
        attribute (str): the attached object's attribute holding its ``concurrent.futures.Executor``,
            default ``executor``.
        start_step (int): first faulted step.
        steps (int): number of consecutive faulted steps, default 1.
    """

    name = "inline_executor"
    summary = "run the attached service's executor work inline on the event loop for a window of steps"
    params_schema = WindowedInjector.schema([], attribute={"type": "string", "default": "executor"})

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.attribute: str = params.get("attribute", "executor")
        self._owner: Any = None
        self._original: Any = None
        self._inline = InlineExecutor()
        self._recorded = False

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        executor = getattr(owner, self.attribute, None) if owner is not None else None
        if not callable(getattr(executor, "submit", None)):
            raise InjectionError(f"inline_executor needs the attached object to hold a concurrent.futures.Executor in "
                                 f"{self.attribute!r}; found {type(executor).__name__}")
        self._owner, self._original = owner, executor

        def reached(_point: str, attributes: dict[str, Any]) -> None:
            active = self.active_at(attributes.get("step"))
            setattr(owner, self.attribute, self._inline if active else self._original)
            if active:
                self.hits += 1
                if not self._recorded:
                    self._recorded = True
                    target.record_fault(self.name, step=attributes.get("step"), attribute=self.attribute,
                                        executor=type(self._original).__name__)

        target.subscribe("step", reached)

    def revert(self) -> None:
        if self._owner is not None:
            setattr(self._owner, self.attribute, self._original)
        self._owner = None
