"""Mixed-precision faults: a training loop that clips gradients before GradScaler unscales them.

The local shim of ``numerics.gradscaler_misuse``: the loop's own ``scaler.unscale_(optimizer)`` call
is deferred to ``scaler.step`` (where GradScaler unscales any optimizer that was not unscaled yet), so
the ``clip_grad_norm_`` between them sees gradients multiplied by the loss scale: the same program as a
loop that forgot ``unscale_``, without editing the repro.
"""

from __future__ import annotations

from typing import Any

from faultlib.inject.base import FaultTarget, WindowedInjector


class ClipBeforeUnscale(WindowedInjector):
    """Defer every ``GradScaler.unscale_`` the workload calls to its ``GradScaler.step``, for a window of steps.

    Patches ``torch.amp.GradScaler.unscale_`` and ``.step`` on the class (``torch.cuda.amp.GradScaler``
    inherits them), so apply it (``ctx.attach``) before the scaler's methods are bound elsewhere (a
    detector that wraps them). ``revert`` puts both back. ``hits`` counts the deferred calls.

    Params:
        start_step (int): first step whose ``unscale_`` is deferred.
        steps (int): how many consecutive steps, default 1.
    """

    name = "clip_before_unscale"
    summary = "defer the loop's GradScaler.unscale_ to scaler.step, so clipping sees scaled gradients"
    params_schema = WindowedInjector.schema([])

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._saved: tuple[Any, Any] | None = None

    def apply(self, target: FaultTarget) -> None:
        import torch

        cls = torch.amp.GradScaler
        unscale, step = cls.unscale_, cls.step
        self._saved = (unscale, step)
        injector, inside = self, [0]

        def deferred_unscale(scaler, optimizer):
            if inside[0] or not injector.active_at(target.step):
                return unscale(scaler, optimizer)
            injector.hits += 1  # GradScaler.step unscales this optimizer itself: its stage is still READY
            return None

        def step_unscaling_inside(scaler, optimizer, *args, **kwargs):
            inside[0] += 1
            try:
                return step(scaler, optimizer, *args, **kwargs)
            finally:
                inside[0] -= 1

        cls.unscale_, cls.step = deferred_unscale, step_unscaling_inside

    def revert(self) -> None:
        if self._saved is not None:
            import torch

            torch.amp.GradScaler.unscale_, torch.amp.GradScaler.step = self._saved
            self._saved = None
