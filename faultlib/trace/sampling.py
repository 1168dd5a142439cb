"""How often the watch pass checks the gradients at ``optimizer.step()``: every step while that is cheap, one step in
``k`` when the check would cost more than :data:`BUDGET` of the step (tiny CPU steps).

The check is one fused kernel over every gradient (:meth:`GradientSentinel.tripped`), ~10 us on CPU with the
gradients just written: 2-4 % of a 0.3-0.5 ms step, nothing on a GPU step. Skipping it on some steps loses nothing
the replay needs, because without a GradScaler (with one, trace does not stop for a non-finite gradient) a
non-finite gradient does not go away: ``optimizer.step()`` writes it into the parameter (SGD ``p - lr * nan``, Adam
``nan / sqrt(nan)``) and it stays there. So on a checked step after skipped ones the parameters are checked too
(one more fused kernel), and a trip arms the replay from the last step checked clean: the op-level replay then
names the step, op and line as it would have with every step checked (``update_step`` in the trip: the first step
the value can be from). A parameter a later forward does not read (an embedding row no batch uses) is found by the
parameter check, not left for the loss to show much later.

The outermost module's output is checked on the same steps (another reduction and read, as costly as the gradient
check inside a 0.3 ms step). A skipped step of training runs lean where it may (:mod:`faultlib.trace.lean`, which
says what that relies on: nothing is checked on it, a non-finite loss is found through the gradients it poisons).
Elsewhere (an enabled GradScaler, a step inside an evaluation's reach) the loss ``backward()`` is called on is still
read every step, and when it is not finite the step's output is checked then, so the trip names the output as it
would have; a non-finite output that reaches neither the loss nor the gradients (rows the loss indexes away) is seen
only on a checked step.

Rules: the first :data:`WARMUP` steps are all checked (scripts of a few steps, and tests, see every step); then
``k = ceil(check cost / (BUDGET x step time))``, at most :data:`MAX_EVERY`, measured with ``time.perf_counter_ns``.
The check cost is the time of the check itself (the fused kernels and the output reduction) and, once lean steps ran,
at least what a checked step takes beyond a lean one: the time from the end of the last lean step of a window to the
end of the checked step after it, less the lean steps' mean (each the median of the last :data:`WINDOWS` windows; see
:meth:`GradientSampler.window`). That is the whole price of a checked step (the wrappers tracking again, the loss
read, code run cold after the lean steps): on a 0.3-0.5 ms CPU step 2-3 times the check alone. (The larger of the
two: a machine's interruptions of the lean steps can make the difference small or negative, and a ``k`` of 1 would
leave no lean window to measure again.) ``--continue`` (counting every step that trips) checks every step,
and so do scripts with several optimizers (a GAN) and parameters of several dtypes or devices in one optimizer.
``FAULTLIB_TRACE_CHECK_EVERY=k`` fixes ``k`` after the warm-up (``1``: every step; tests use it to be independent
of the machine's speed).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections import deque
from typing import Any

BUDGET = 0.01
"""The share of a step the gradient check may take on average (1 %)."""
WARMUP = 20
"""Optimizer steps always checked before ``k`` may grow."""
MAX_EVERY = 64
"""The largest ``k``: a trip arms the replay at most this many steps before it (the op-level replay costs several
times a plain step; ``k`` nears it only where a step is a fraction of a millisecond: 64 replayed steps of 0.3 ms)."""
WINDOWS = 5
"""Windows (a checked step and the lean steps before it) whose median check cost sets ``k``: one window's cost moves
by a whole step when the machine interrupts it."""


class GradientSampler:
    """Which steps the watch pass checks, and the last step it found clean (see the module docstring).

    Args:
        enabled: False keeps ``k = 1`` (``--continue``).

    Attributes:
        every: the current ``k``.
        clean_step, clean_forward: the last checked step whose gradients (and parameters, when steps were
            skipped before it) were finite, and the model forward that began it; None before any.
        skipped: whether steps went unchecked since ``clean_step`` (a trip then arms from ``clean_forward``).
        left: steps still to skip; read at a model forward, ``left > 0`` says the current step's gradients go
            unchecked (the watch pass then leaves that step's output to the loss check, see
            :meth:`faultlib.trace.boot.Tracer._root_output`).
    """

    def __init__(self, *, enabled: bool = True):
        self.enabled = enabled
        self.every = 1
        forced = os.environ.get("FAULTLIB_TRACE_CHECK_EVERY", "")
        self._forced = int(forced) if forced.isdigit() and int(forced) >= 1 else None
        self.clean_step: int | None = None
        self.clean_forward: int | None = None
        self.skipped = False
        self.left = 0
        self.output_ns = 0  # what the step's output check took (set by the tracer), part of the check's cost
        self._checked_ns: int | None = None  # when the last check began
        self._checked_step = 0
        self._params: dict[int, tuple[list[Any], Any, Any] | None] = {}
        self.optimizers: set[int] = set()  # ids of the optimizers whose steps were checked
        self.checked = False  # clean() ran in this step
        self.lean_end_ns: int | None = None  # when the last lean step of this window ended (set by LeanSteps)
        self._window_ns: int | None = None  # when the last checked step ended (its optimizer.step() post-hook)
        self._window_lean = 0  # lean steps to come in the window that checked step opened
        self._costs: deque[tuple[float, float]] = deque(maxlen=WINDOWS)  # (checked step ns, mean lean step ns)

    def skip(self) -> bool:
        """Whether this step's check is skipped (call once per ``optimizer.step()``; counts it down)."""
        if self.left:
            self.left -= 1
            self.skipped = True
            return True
        return False

    def params_finite(self, optimizer: Any) -> bool:
        """After skipped steps: whether every parameter of ``optimizer`` is finite (one fused kernel, under
        ``no_grad``; the values are written back unchanged, as the optimizer's own in-place update is about to)."""
        import torch

        plan = self._params.get(id(optimizer), False)
        if plan is False:
            params = [p for g in optimizer.param_groups for p in g["params"] if p.is_floating_point()]
            kinds = {(p.device, p.dtype) for p in params}
            plan = self._params[id(optimizer)] = None if len(kinds) != 1 else (
                params, torch.zeros(1, device=params[0].device), torch.ones(1, device=params[0].device))
        if plan is None:
            return all(bool(torch.isfinite(p.detach()).all()) for g in optimizer.param_groups for p in g["params"]
                       if p.is_floating_point())
        params, found, one = plan
        with torch.no_grad():
            torch._amp_foreach_non_finite_check_and_unscale_(params, found, one)
        if found.item():
            found.zero_()
            return False
        return True

    def clean(self, step: int, forward: int | None, optimizer: Any, started_ns: int) -> None:
        """The check that began at ``started_ns`` found step ``step`` clean: remember it and choose the next ``k``."""
        self.clean_step, self.clean_forward, self.skipped = step, forward, False
        self.checked = True  # read (and cleared) at this step's end: window()
        now = time.perf_counter_ns()
        self.optimizers.add(id(optimizer))
        if len(self.optimizers) > 1:  # one count for several optimizers could skip one of them every time
            self.enabled, self.every = False, 1
        if self._checked_ns is not None and step > self._checked_step:
            step_ns = (started_ns - self._checked_ns) / (step - self._checked_step)
            if self.enabled and step >= WARMUP and step_ns > 0 and self._params.get(id(optimizer), 0) is not None:
                every = math.ceil((now - started_ns + self.output_ns) / (BUDGET * step_ns))
                if self._costs:  # lean steps ran: what a checked step costs beyond them, measured (see window())
                    lean_ns = statistics.median(n for _, n in self._costs)
                    cost = statistics.median(c for c, _ in self._costs) - lean_ns
                    every = max(every, math.ceil(cost / (BUDGET * lean_ns)))
                self.every = self._forced or min(MAX_EVERY, max(1, every))
        self.output_ns = 0
        self._checked_ns, self._checked_step = started_ns, step
        self.left = self.every - 1

    def window(self, now_ns: int, lean: bool) -> None:
        """A checked step ended at ``now_ns`` (its ``optimizer.step()`` post-hook); ``lean``: the steps it skips will
        run lean. When the window before it ran lean to its end (:attr:`lean_end_ns` set), its cost is measured:
        the checked step (from the end of the last lean step to now) and the lean steps' mean. An interruption of the
        machine inflates one or the other: :meth:`clean` takes the median of each over :data:`WINDOWS` windows, and
        the check cost is their difference."""
        self.checked = False
        lean_end, start, count = self.lean_end_ns, self._window_ns, self._window_lean
        if lean_end is not None and start is not None and count and start < lean_end < now_ns:
            lean_ns = (lean_end - start) / count
            self._costs.append((now_ns - lean_end, lean_ns))
        self.lean_end_ns = None
        self._window_ns, self._window_lean = (now_ns, self.left) if lean else (None, 0)

    def restart(self) -> None:
        """The tracer was installed again: no window spans the time it was out."""
        self.lean_end_ns, self._window_ns, self._window_lean = None, None, 0
