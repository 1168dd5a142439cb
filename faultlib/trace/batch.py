"""What one traced step consumed, whether a NaN was already in it, and the dump that replays it.

Used by the locate pass of ``faultlib trace`` (:mod:`faultlib.trace.boot`) while the op-level
check is armed. A ``TorchFunctionMode`` sees every torch call made by the script's own code
(the calls torch makes inside its functions are not seen) and sorts each tensor a call consumes:

* **produced** in the step: the output of an earlier call since the step began;
* **state**: a parameter or buffer of a traced model;
* **batch**: a positional argument of the model's outermost forward;
* **consumed from outside the step**: everything else: the target passed to the loss, a mask,
  a tensor indexed inside the step. Kept in the dump next to the batch, so the step and its
  loss replay from the dump alone.

A NaN **already there**: a call consumes a batch, outside or state tensor that holds NaN, and
its output holds NaN. No op of the step made that NaN, so
:class:`faultlib.detect.numerics.nan_locator.NonFiniteLocator` (which names only values born from
NaN-free inputs) never would: it is reported with ``source`` ``input`` or ``parameter``. An
``inf`` from outside is not counted (an additive ``-inf`` mask is legitimate); the op that
turns it into a NaN is named, like the softmax of a fully masked row.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import asdict
from typing import Any

from faultlib.detect.numerics.module_stack import ModuleStack
from faultlib.detect.numerics.nan_locator import NonFiniteLocator, TensorStats, user_frame
from faultlib.trace import loaders

MAX_KEPT_BYTES = 256 * 2**20
"""A tensor consumed from outside the step larger than this (bytes) is described in the dump, not copied."""


def tensor_json(t) -> dict[str, Any]:
    """``{shape, dtype, nan, inf, finite_min, finite_max}`` of ``t`` (counts of elements)."""
    return asdict(TensorStats.of(t))


def func_name(func) -> str:
    """A readable name for a torch callable: ``torch.log``, ``Tensor.__getitem__``, ``torch.nn.functional.mse_loss``."""
    name = getattr(func, "__name__", repr(func))
    if "Tensor" in getattr(func, "__qualname__", ""):
        return f"Tensor.{name}"
    module = getattr(func, "__module__", None) or "torch"
    return f"torch.{name}" if module == "torch" or module.startswith("torch._C") else f"{module}.{name}"


class StepInputs:
    """The tensors the current step consumed (see the module docstring).

    Args:
        modules: the tracer's :class:`ModuleStack` (its roots are the traced models).
        locator: the armed locator; a NaN already there counts only before its first born value.
        step: returns the current step.

    Attributes:
        batch: the positional arguments of each model forward of the step, in call order.
        consumed: ``{"tensor", "shape", "dtype", "by", "argument", "file", "line"}`` per tensor
            consumed from outside the step, in first-use order (``tensor`` None when larger
            than :data:`MAX_KEPT_BYTES`).
        event: the NaN already there (JSON, the fields of ``first_nonfinite``) or None.
        inf_seen: the first inf from outside the step (same fields) that a call turned into a
            non-finite output before any value was born, or None: context for the op that is named.
    """

    def __init__(self, modules: ModuleStack, locator: NonFiniteLocator, step):
        self.modules = modules
        self.locator = locator
        self.step = step
        self.event: dict[str, Any] | None = None
        self.inf_seen: dict[str, Any] | None = None
        self.begin_step(0)
        self._mode = None
        self.paused = False  # inside optimizer.step(): the update is not something the step consumed

    def begin_step(self, forward_index: int) -> None:
        """Forget the previous step: its batch, what it consumed and produced."""
        self.forward_index = forward_index
        self.batch: list[tuple] = []
        self.consumed: list[dict[str, Any]] = []
        self._batch_args: dict[int, tuple[Any, str, int, str | None, int | None]] = {}
        self._outside: dict[int, tuple[Any, dict[str, Any]]] = {}  # id -> (tensor, its ``consumed`` entry)
        self._produced: dict[int, weakref.ref] = {}  # weak: the step's activations are freed as usual
        self._state_names: dict[int, str] | None = None

    def add_batch(self, module, args: tuple, forward_index: int) -> None:
        """Record one model forward's positional arguments (called before the forward runs)."""
        import torch

        self.forward_index = forward_index
        self.batch.append(args)
        file, line = user_frame()
        root = self.modules.name_of(module)
        for i, arg in enumerate(args):
            for t in torch.utils._pytree.tree_leaves(arg):
                if isinstance(t, torch.Tensor):
                    self._batch_args[id(t)] = (t, f"args[{i}] of {root}.forward", forward_index, file, line)

    # -- the mode ---------------------------------------------------------------------------
    def __enter__(self) -> "StepInputs":
        from torch.overrides import TorchFunctionMode

        inputs = self

        class _SortInputs(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if inputs.paused:
                    return func(*args, **kwargs)
                outside = inputs._sort(func, args, kwargs)
                born_before = len(inputs.locator.events)
                out = func(*args, **kwargs)
                inputs._mark_produced(out)
                if outside and inputs.event is None and born_before == 0:
                    inputs._check_already_there(outside, out)
                return out

        self._mode = _SortInputs()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None

    def _state(self) -> dict[int, str]:
        if self._state_names is None:
            self._state_names = {id(t): name for root in self.modules.roots.values()
                                 for name, t in (*root.named_parameters(), *root.named_buffers())}
        return self._state_names

    def _sort(self, func, args, kwargs) -> list[tuple[Any, str, str, int, str | None, int | None]]:
        """The tensors of this call not produced in the step: ``(tensor, source, description,
        batch_index, file, line)``; first sight of one from outside adds it to ``consumed``."""
        import torch
        from torch.utils._pytree import tree_leaves

        found = []
        for position, value in [*enumerate(args), *kwargs.items()]:
            for t in tree_leaves(value):
                if not isinstance(t, torch.Tensor):
                    continue
                ref = self._produced.get(id(t))
                if ref is not None and ref() is t:
                    continue
                state = self._state().get(id(t))
                arg = self._batch_args.get(id(t))
                if state is not None:
                    found.append((t, "parameter", state, self.forward_index, None, None))
                elif arg is not None and arg[0] is t:
                    found.append((t, "input", arg[1], arg[2], arg[3], arg[4]))
                else:
                    entry = self._consume(t, func, position)
                    found.append((t, "input", f"argument {position} of {entry['by']}", self.forward_index,
                                  entry["file"], entry["line"]))
        return found

    def _consume(self, t, func, position) -> dict[str, Any]:
        known = self._outside.get(id(t))
        if known is not None and known[0] is t:
            return known[1]
        file, line = user_frame()
        entry = {"tensor": t if t.numel() * t.element_size() <= MAX_KEPT_BYTES else None, "shape": list(t.shape),
                 "dtype": str(t.dtype).replace("torch.", ""), "by": func_name(func), "argument": position,
                 "file": file, "line": line}
        self._outside[id(t)] = (t, entry)
        self.consumed.append(entry)
        return entry

    def _mark_produced(self, out) -> None:
        import torch
        from torch.utils._pytree import tree_leaves

        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self._produced[id(t)] = weakref.ref(t)

    def _check_already_there(self, outside, out) -> None:
        import torch
        from torch.utils._pytree import tree_leaves

        outputs = [t for t in tree_leaves(out) if isinstance(t, torch.Tensor) and t.is_floating_point()]
        if all(bool(torch.isfinite(t).all()) for t in outputs):
            return
        out_nan = any(bool(torch.isnan(t).any()) for t in outputs)
        for t, source, where, batch_index, file, line in outside:
            if any(t is o for o in outputs):  # an in-place op's output: what it held before is not known here
                continue
            if not t.is_floating_point() or bool(torch.isfinite(t).all()):
                continue
            if file is None:
                file, line = user_frame()
            seen = {"step": self.step(), "phase": "backward" if torch._C._current_autograd_node() is not None
                    else "forward", "module": self.modules.current, "op": None, "aten_op": None, "file": file,
                    "line": line, "tensor": tensor_json(t), "source": source, "input": where,
                    "batch_index": batch_index}
            samples = loaders.samples_of(t) if source == "input" else None
            if samples is not None:  # a DataLoader's batch: its rows, dataset indices and worker
                seen["samples"] = samples
            if out_nan and bool(torch.isnan(t).any()):
                self.event = seen
                return
            if self.inf_seen is None:
                self.inf_seen = seen


def write_dump(path: str, *, step: int | None, event: dict | None, inputs: StepInputs | None, loss,
               model_state: dict | None, optimizer_state: dict | None) -> str:
    """Save what replays the step; loads with ``torch.load(path, weights_only=True)``.

    Keys: ``step``; ``event`` (the ``first_nonfinite`` dict); ``batch`` (the model forward's
    positional arguments: a tuple, or a list of tuples when the step called the model more
    than once); ``consumed`` (tensors the step consumed from outside it, e.g. the loss's
    target: ``{"tensor", "shape", "dtype", "by", "argument", "file", "line"}`` each, ``by``
    the torch function that first consumed it, ``argument`` its position or keyword there,
    ``file``/``line`` the user's line of that call; only what the step had consumed when the
    replay stopped); ``loss`` (the tensor ``backward()`` was called on, or None);
    ``model_state``; ``optimizer_state``. Returns the path written.

    Raises:
        OSError: the file could not be written.
    """
    import torch
    from torch.utils._pytree import tree_map

    from faultlib.outputs import open_new

    def detach(v):
        return v.detach().clone() if isinstance(v, torch.Tensor) else v

    batch = [] if inputs is None else inputs.batch
    consumed = [] if inputs is None else [{k: detach(v) for k, v in c.items()} for c in inputs.consumed]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open_new(path) as fh:  # never through a link planted at the dump's name
        torch.save({"step": step, "event": event, "batch": tree_map(detach, batch[0] if len(batch) == 1 else batch),
                    "consumed": consumed, "loss": detach(loss), "model_state": tree_map(detach, model_state),
                    "optimizer_state": optimizer_state}, fh)
    return str(path)
