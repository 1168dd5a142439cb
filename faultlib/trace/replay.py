"""The replay's side of :class:`faultlib.trace.boot.Tracer` (the second run, armed from the step the watch pass
tripped at, or the last one it checked clean): the op-level check (:class:`~faultlib.detect.numerics.nan_locator.
NonFiniteLocator`) and the step's inputs (:class:`~faultlib.trace.batch.StepInputs`) armed, the first non-finite
value, the parameters its gradients reached, and what ``optimizer.step()`` wrote.

A mixin: the tracer's state (``locator``, ``inputs``, ``extra``, ...) is set up by :class:`~faultlib.trace.boot.Tracer`.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.numerics.nan_locator import NonFiniteLocator, user_frame
from faultlib.trace import causes
from faultlib.trace.batch import StepInputs, tensor_json


class Replay:
    """The armed pass's methods of :class:`~faultlib.trace.boot.Tracer`."""

    def _arm(self) -> None:
        self.modules.every_module = True  # the op-level check names the innermost module
        self.locator = NonFiniteLocator(modules=self.modules, step=lambda: self.step, stop=False)
        self.locator.__enter__()
        self.inputs = StepInputs(self.modules, self.locator, lambda: self.step).__enter__()

    def disarm(self) -> None:
        """Leave the torch modes (innermost first), so the dump and the result are written unchecked."""
        if self.inputs is not None:
            self.inputs.__exit__(None, None, None)
        if self.locator is not None:
            self.locator.__exit__(None, None, None)

    def first_event(self) -> dict[str, Any] | None:
        """The armed pass's first non-finite value: a NaN already there (it precedes any op's,
        see :mod:`faultlib.trace.batch`), else the first value an op produced."""
        if self.update_event is not None and self.update_event.get("first"):  # a step past the GradScaler
            return {**{k: v for k, v in self.update_event.items() if k != "first"}, "kind": "value", **self.extra}
        if self.inputs is not None and self.inputs.event is not None:
            return {**self.inputs.event, "kind": "value", **self.extra}
        if self.locator is not None and self.locator.events:
            return {**self.locator.events[0].to_json(), "source": "op", "input": None,
                    "batch_index": self.inputs.forward_index if self.inputs is not None else None,
                    "kind": "value", **self.extra}
        if self.update_event is not None:
            return {**self.update_event, "kind": "value", **self.extra}
        if self.extra.get("inf_input"):
            return {**self.inputs.inf_seen, "kind": "value",
                    **{k: v for k, v in self.extra.items() if k != "inf_input"}}
        return None

    def _stop_if_found(self) -> None:
        if self.first_event() is None and self.inputs is not None and self.inputs.inf_seen is not None \
                and self.step == self.trip_step:
            self.extra["inf_input"] = True  # the step ends: the inf from outside it is what the watch pass saw
        if self.first_event() is not None:
            self._stop()

    def _named(self) -> list[tuple[str, Any]]:
        """The traced models' parameters by name, then any other parameter an optimizer holds (a module the script
        only indexes, ``emb.weight[i]``, is never called: ``SGD.param_groups[g][i]``)."""
        named = [(n, p) for root in self.modules.roots.values() for n, p in root.named_parameters()]
        seen = {id(p) for _, p in named}
        for opt in self.optimizers:
            for g, group in enumerate(opt.param_groups):
                named += [(f"{type(opt).__name__}.param_groups[{g}][{i}]", p)
                          for i, p in enumerate(group["params"]) if id(p) not in seen]
        return named

    def _after_backward(self) -> None:
        """Replay: name the parameters whose gradient the first non-finite value reached."""
        self.clipped = None
        if self.locator is not None and self.first_event() is not None and "gradients_reached" not in self.extra:
            named = self._named()
            if named:  # else no model or optimizer is known yet (a backward before both): nothing to name
                names, count = causes.nonfinite_grads(named)
                self.extra["gradients_reached"] = {"parameters": names, "count": count}

    def _unchecked(self, output) -> bool:
        """Replay: :meth:`_output_finite` with the locator's modes off (its own reductions are not the script's)."""
        from torch.utils._python_dispatch import _disable_current_modes

        with _disable_current_modes():
            return self._output_finite(output)

    def _step_past_scaler(self, optimizer) -> None:
        """Replay: ``optimizer.step()`` outside the enabled GradScaler's ``step()`` with non-finite gradients is what
        the step went wrong at; the overflow the locator saw in the scaled backward is the scaler's ordinary one
        (kept as ``upstream``)."""
        found = causes.step_past_scaler(optimizer, {id(p): n for n, p in self._named()})
        if found is None:
            return
        found, grad = found
        file, line = user_frame()
        overflow = [{"what": "the scaler's skipped overflow", "op": e.op,
                     "file": e.file, "line": e.line} for e in self.locator.events[:1]]
        self.extra.update(kind="optimizer_update", phase="optimizer", optimizer=found)
        self.update_event = {"step": self.step, "phase": "optimizer", "module": None, "op": None, "aten_op": None,
                             "file": file, "line": line, "tensor": tensor_json(grad), "source": "gradient",
                             "input": None, "batch_index": self.inputs.forward_index, "upstream": overflow,
                             "first": True}

    def _check_update(self, optimizer) -> None:
        """Replay: the parameters right after ``optimizer.step()``; a non-finite one that no earlier value of the
        step explains was written by the update: name the optimizer, group, parameter and cause."""
        earlier = self._events_before_step or (self.inputs is not None and self.inputs.event is not None)
        if earlier:
            return
        update = causes.optimizer_update(optimizer, {id(p): n for n, p in self._named()})
        if update is None:
            return
        self.extra.update(kind="optimizer_update", phase="optimizer", optimizer=update)
        if not self.locator.events:  # no op made it from finite inputs (an lr that is inf): the parameter itself
            param = next(p for p in (p for g in optimizer.param_groups for p in g["params"])
                         if p.is_floating_point() and not bool(self.torch.isfinite(p.detach()).all()))
            file, line = user_frame()
            self.update_event = {"step": self.step, "phase": "optimizer", "module": None, "op": None,
                                 "aten_op": None, "file": file, "line": line, "tensor": tensor_json(param),
                                 "source": "op", "input": None, "batch_index": self.inputs.forward_index}
