"""Find the op that produced the first non-finite value, forward or backward.

:class:`NonFiniteLocator` is a context manager that, while active, checks the output of
every aten op (a ``TorchDispatchMode``, below autograd, so it also sees the ops autograd runs
in backward and values that are produced and then discarded, e.g. the NaN branch of an unsafe
``torch.where``) and records where each autograd node was created (a ``TorchFunctionMode``,
above autograd), so a value born in backward is attributed to the module, the source line and
the autograd node (``SqrtBackward0``) of the forward op it differentiates.
:class:`~faultlib.detect.numerics.module_stack.ModuleStack` tracks the innermost running module.

"Born" means: a NaN produced by an op none of whose inputs holds a NaN, or an inf produced
from inputs (tensors and scalars) that are all finite. A ``-inf`` written on purpose
(``masked_fill(mask, -inf)``: the scalar is already non-finite) is not born; the NaN a softmax
makes of a fully masked row is. Ops that return uninitialised memory (``aten::empty*``) are
skipped, and so is ``aten::lift_fresh`` (``torch.tensor(...)``, ``x[i] = float("nan")``: a constant
the script wrote, like the ``-inf`` above, is data, not a value an op made; where such data held a NaN or inf is
remembered as the ``upstream`` of the op that then makes a NaN of it).

Cost: one Python callback and a reduction per op while active (several times slower than
the bare step), which is why the sentinels arm it only for the step that tripped them.
PyTorch's ``set_detect_anomaly`` names only the backward node, and for a NaN born in forward
the first node downstream rather than the origin (see MACHINE-NOTES and PyTorch issue 20975).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any, Callable

from faultlib.detect.numerics.frames import user_frame
from faultlib.detect.numerics.module_stack import ModuleStack
from faultlib.findings import Finding, Severity

_SKIP_SUBSTRINGS = ("empty", "_local_scalar_dense", "set_", "resize_", "lift_fresh")


@dataclass(frozen=True)
class TensorStats:
    """Shape, dtype and content counts of one tensor; min/max over its finite part (None if none)."""

    shape: list[int]
    dtype: str
    nan: int
    inf: int
    finite_min: float | None
    finite_max: float | None

    @classmethod
    def of(cls, t) -> "TensorStats":
        import torch

        with torch.no_grad():
            t = t.detach()
            finite = t[torch.isfinite(t)]
            return cls(list(t.shape), str(t.dtype).replace("torch.", ""), int(torch.isnan(t).sum()),
                       int(torch.isinf(t).sum()), float(finite.min()) if finite.numel() else None,
                       float(finite.max()) if finite.numel() else None)


@dataclass(frozen=True)
class NonFiniteEvent:
    """Where a non-finite value was born.

    Attributes:
        step: the training step (as the caller counts them), or None.
        phase: ``forward`` or ``backward``.
        module: dotted name of the innermost module running when it was born (relative to the
            outermost module; the outermost module itself by its class name); None outside modules.
        op: the aten op (``aten::sqrt``) in forward, the autograd node (``SqrtBackward0``) in backward.
        aten_op: the aten op that produced it, in both phases.
        file, line: the user's source line that called the op (for backward: the forward call
            that created the autograd node).
        tensor: :class:`TensorStats` of the output.
        upstream: one step upstream, where the non-finite values in the op's inputs were written
            (``{"what", "op", "file", "line"}`` each: ``the -inf in its input`` for an op that filled it in
            from a non-finite scalar, e.g. ``aten::masked_fill``; ``the mask`` for the op that last wrote
            the boolean mask it used, with ``from_buffer``: the model buffer it was computed from, e.g. a
            causal mask built in ``__init__``, and ``buffer_file``/``buffer_line``: the ``register_buffer`` call
            that built it, when the module stack was installed then), plus ``{"what": "fully masked rows", "count"}`` for a softmax.
    """

    step: int | None
    phase: str
    module: str | None
    op: str
    aten_op: str
    file: str | None
    line: int | None
    tensor: TensorStats
    upstream: tuple = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tensor"] = {"shape": self.tensor.shape, "dtype": self.tensor.dtype, "nan": self.tensor.nan,
                          "inf": self.tensor.inf, "finite_min": self.tensor.finite_min,
                          "finite_max": self.tensor.finite_max}
        data["upstream"] = [dict(u) for u in self.upstream]
        return data

    @property
    def autograd_node(self) -> str | None:
        """The autograd node whose backward produced the value (``SqrtBackward0``); None in forward."""
        return self.op if self.phase == "backward" else None

    def finding(self, detector: str = "nan_locator") -> Finding:
        """The :class:`Finding`: ``location.op`` is :attr:`op`; the message and the evidence name
        both the autograd node (backward only) and the aten op, each labelled, e.g.
        ``first NaN born in backward in module norm (repro.py:26): autograd node SqrtBackward0,
        aten op aten::div`` (SqrtBackward0 computes ``grad / (2 * result)``: the op that made the
        NaN is the division it runs, 0 / 0 at a zero input)."""
        kind = "NaN" if self.tensor.nan else "inf"
        where = f"module {self.module}" if self.module else "outside any module"
        source = f" ({os.path.basename(self.file)}:{self.line})" if self.file else ""
        ops = (f"autograd node {self.autograd_node}, aten op {self.aten_op}" if self.autograd_node
               else f"aten op {self.aten_op}")
        location = {k: v for k, v in {"step": self.step, "phase": self.phase, "module": self.module,
                                       "op": self.op, "file": self.file, "line": self.line}.items()
                    if v is not None}
        upstream = "".join(f"; {u['what']}: {u['op']} ({os.path.basename(u['file'] or '?')}:{u['line']})"
                           + (f" from buffer {u['from_buffer']}" if u.get("from_buffer") else "")
                           + (f" registered at {os.path.basename(u['buffer_file'])}:{u['buffer_line']}"
                              if u.get("buffer_file") else "")
                           for u in self.upstream if u.get("op"))
        return Finding(detector, Severity.ERROR,
                       f"first {kind} born in {self.phase} in {where}{source}: {ops}{upstream}", location,
                       {"autograd_node": self.autograd_node, "aten_op": self.aten_op,
                        "tensor": self.to_json()["tensor"], "upstream": [dict(u) for u in self.upstream]})


class NonFiniteFound(BaseException):
    """Raised by a stopping locator at the first born value. A BaseException, so a script's
    ``except Exception`` does not swallow it."""

    def __init__(self, event: NonFiniteEvent):
        super().__init__(f"non-finite value born in {event.phase}: {event.op}")
        self.event = event


def _tensors(tree) -> list:
    import torch
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(tree) if isinstance(t, torch.Tensor)]


def _nonfinite_scalar(tree) -> bool:
    from torch.utils._pytree import tree_leaves

    return any(isinstance(v, float) and not math.isfinite(v) for v in tree_leaves(tree))


class NonFiniteLocator:
    """Context manager checking every op output while active.

    Args:
        modules: a :class:`ModuleStack` already installed (one is installed for the duration
            otherwise).
        step: the step to report.
        stop: raise :class:`NonFiniteFound` at the first born value (default); else record all.

    Attributes:
        events: every born value seen, in production order (only the first when ``stop``).
    """

    def __init__(self, *, modules: ModuleStack | None = None, step: int | Callable[[], int] | None = None,
                 stop: bool = True):
        self.modules = modules
        self._own_modules = modules is None
        self._step = step
        self.stop = stop
        self.events: list[NonFiniteEvent] = []
        self.node_origin: dict[int, tuple[Any, str | None, str | None, int | None]] = {}
        self._modes: list[Any] = []
        # storage -> where its non-finite values (or, for a boolean tensor, its values) were last written
        self._written: dict[int, dict[str, Any]] = {}
        self._buffer_names: dict[int, dict[str, Any]] | None = None

    @property
    def first(self) -> NonFiniteEvent | None:
        return self.events[0] if self.events else None

    @property
    def step(self) -> int | None:
        return self._step() if callable(self._step) else self._step

    def __enter__(self) -> "NonFiniteLocator":
        if self._own_modules:
            self.modules = ModuleStack().install()
        self._modes = [_make_function_mode(self), _make_dispatch_mode(self)]
        for mode in self._modes:
            mode.__enter__()
        self._unpatch = _record_custom_functions(self)
        return self

    def __exit__(self, *exc) -> None:
        self._unpatch()
        for mode in reversed(self._modes):
            mode.__exit__(None, None, None)
        self._modes = []
        if self._own_modules and self.modules is not None:
            self.modules.remove()
        self.node_origin.clear()
        self._written.clear()

    # called by the modes -------------------------------------------------------------------
    def _record_nodes(self, out) -> None:
        for t in _tensors(out):
            node = t.grad_fn
            if node is not None and id(node) not in self.node_origin:
                file, line = user_frame()
                self.node_origin[id(node)] = (node, self.modules.current if self.modules else None, file, line)

    def _check(self, func, args, kwargs, out, pre_nonfinite: bool | None) -> None:
        import torch

        name = func._schema.name
        if name == "aten::lift_fresh":  # torch.tensor(values): a non-finite value made from Python data
            self._made_from_python(out)
            return
        if any(s in name for s in _SKIP_SUBSTRINGS):
            return
        for t in _tensors(out):
            if t.dtype == torch.bool:  # a mask: remember the op and line that last wrote it, and its buffer
                file, line = user_frame()
                mask = {"what": "the mask", "op": name, "file": file, "line": line}
                buffers = self._buffers()
                source = next((buffers[_storage(i)] for i in _tensors((args, kwargs)) if _storage(i) in buffers), None)
                self._written[_storage(t)] = {**mask, **source} if source else mask
                continue
            if not t.is_floating_point() or t.numel() == 0 or bool(torch.isfinite(t).all()):
                continue
            has_nan = bool(torch.isnan(t).any())
            inputs = _tensors((args, kwargs))
            floats = [i for i in inputs if i.is_floating_point() and i is not t]
            if has_nan:
                born = not any(bool(torch.isnan(i).any()) for i in floats)
            else:
                born = not _nonfinite_scalar((args, kwargs)) and all(bool(torch.isfinite(i).all()) for i in floats)
            if pre_nonfinite is not None:
                born = born and not pre_nonfinite
            if born:
                self._born(name, t, args)
            else:
                self._carry(name, t, args, kwargs)
            return

    def _made_from_python(self, out) -> None:
        """Remember where a tensor made from Python values (``torch.tensor(rewards)``, which dispatches only
        ``aten::lift_fresh``) already held a NaN or inf: upstream of an op that then makes a NaN from it (``x -
        x.mean()`` over an inf). Not an event itself: no op made the value."""
        import torch

        for t in _tensors(out):
            if t.is_floating_point() and t.numel() and not bool(torch.isfinite(t).all()):
                file, line = user_frame()
                kind = "NaN" if bool(torch.isnan(t).any()) else "inf"
                self._written[_storage(t)] = {"what": f"the {kind} in its input, made from Python values",
                                              "op": "torch.tensor", "file": file, "line": line}

    def _buffers(self) -> dict[int, dict[str, Any]]:
        """``{storage: {"from_buffer": dotted name, "buffer_file", "buffer_line"}}`` of the traced models' buffers
        (a causal mask built in ``__init__``; where it was registered when the module stack saw it built)."""
        if self._buffer_names is None:
            stack = self.modules
            roots = stack.roots.values() if stack is not None else ()
            found: dict[int, dict[str, Any]] = {}
            for root in roots:
                for prefix, sub in root.named_modules():
                    for name, b in sub._buffers.items():
                        if b is None or _storage(b) in found:
                            continue
                        file, line = stack.buffer_site(sub, name) if stack is not None else (None, None)
                        found[_storage(b)] = {"from_buffer": f"{prefix}.{name}" if prefix else name,
                                              **({"buffer_file": file, "buffer_line": line} if file else {})}
            self._buffer_names = found
        return self._buffer_names

    def _carry(self, name: str, t, args, kwargs) -> None:
        """Remember where the non-finite values of ``t`` (not born here) came from: this op, when it wrote them
        from a non-finite scalar (``masked_fill(mask, -inf)``), else the input that already held them."""
        import torch

        inputs = [i for i in _tensors((args, kwargs)) if i is not t]
        origin = next((self._written.get(_storage(i)) for i in inputs if i.is_floating_point()
                       and _storage(i) in self._written and not bool(torch.isfinite(i).all())), None)
        if origin is None and _nonfinite_scalar((args, kwargs)):
            file, line = user_frame()
            mask = next((self._written.get(_storage(i)) for i in inputs if i.dtype == torch.bool), None)
            origin = {"what": "the -inf in its input" if bool(torch.isneginf(t).any()) else "the inf in its input",
                      "op": name, "file": file, "line": line, "mask": mask}
        if origin is not None:
            self._written[_storage(t)] = origin

    def _upstream(self, aten_op: str, args) -> tuple:
        import torch

        found: list[dict[str, Any]] = []
        for i in _tensors(args):
            origin = self._written.get(_storage(i)) if i.is_floating_point() else None
            if origin is not None and origin not in found and not bool(torch.isfinite(i).all()):
                found.append(origin)
        out = []
        for origin in found:
            out.append({k: v for k, v in origin.items() if k != "mask"})
            if origin.get("mask"):
                out.append(dict(origin["mask"]))
        if aten_op in ("aten::_softmax", "aten::_log_softmax") and len(args) > 1 and isinstance(args[1], int):
            x = args[0]
            out.append({"what": "fully masked rows", "count": int(torch.isneginf(x).all(args[1]).sum())})
        return tuple(out)

    def _born(self, aten_op: str, t, args=()) -> None:
        import torch

        node = torch._C._current_autograd_node()
        if node is not None:
            origin = self.node_origin.get(id(node))
            module, file, line = (origin[1], origin[2], origin[3]) if origin else (None, None, None)
            event = NonFiniteEvent(self.step, "backward", module, type(node).__name__, aten_op, file, line,
                                   TensorStats.of(t))
        else:
            file, line = user_frame()
            event = NonFiniteEvent(self.step, "forward", self.modules.current if self.modules else None,
                                   aten_op, aten_op, file, line, TensorStats.of(t), self._upstream(aten_op, args))
        self.events.append(event)
        if self.stop:
            raise NonFiniteFound(event)


def _storage(t) -> int:
    """Key of a tensor's memory (views share it): its storage's address."""
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):  # no storage (sparse, meta, functional)
        return id(t)


def _make_dispatch_mode(locator: NonFiniteLocator):
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class _CheckOutputs(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            pre = None
            if func._schema.is_mutable:  # in-place / out=: judge the inputs before they change
                pre = any(i.is_floating_point() and not bool(torch.isfinite(i).all())
                          for i in _tensors((args, kwargs)))
            out = func(*args, **kwargs)
            locator._check(func, args, kwargs, out, pre)
            return out

    return _CheckOutputs()


def _make_function_mode(locator: NonFiniteLocator):
    from torch.overrides import TorchFunctionMode

    class _RecordNodes(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            locator._record_nodes(out)
            return out

    return _RecordNodes()


def _record_custom_functions(locator: NonFiniteLocator) -> Callable[[], None]:
    """Record where custom ``torch.autograd.Function`` outputs are created: ``Function.apply``
    does not pass through torch-function modes. Returns the function that undoes the patch."""
    from torch.autograd import Function

    original = Function.__dict__["apply"]

    def apply(cls, *args, **kwargs):
        out = original.__func__(cls, *args, **kwargs)
        locator._record_nodes(out)
        return out

    Function.apply = classmethod(apply)

    def undo() -> None:
        Function.apply = original

    return undo


def locate(fn: Callable[[], Any], *, step: int | None = None) -> NonFiniteEvent | None:
    """Run ``fn`` (e.g. a closure replaying one training step: forward, loss, backward) under a
    stopping :class:`NonFiniteLocator`; return where the first non-finite value was born, or None."""
    try:
        with NonFiniteLocator(step=step):
            fn()
    except NonFiniteFound as found:
        return found.event
    return None


def write_dump(path, *, step: int | None, event: NonFiniteEvent | None, batch: Any = None, loss: Any = None,
               model_state: dict | None = None, optimizer_state: dict | None = None) -> str:
    """Save what is needed to replay the step, loadable with ``torch.load(path, weights_only=True)``.

    Keys: ``step``, ``event`` (JSON-like dict), ``batch`` (tensors as passed to the model),
    ``loss``, ``model_state`` (state_dict), ``optimizer_state`` (optimizer.state_dict()).
    Returns the path written.
    """
    import torch
    from torch.utils._pytree import tree_map

    from faultlib.outputs import open_new

    def detach(v):
        return v.detach().clone() if isinstance(v, torch.Tensor) else v

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open_new(path) as fh:  # never through a link planted at the dump's name
        torch.save({"step": step, "event": event.to_json() if event else None, "batch": tree_map(detach, batch),
                    "loss": detach(loss), "model_state": tree_map(detach, model_state),
                    "optimizer_state": optimizer_state}, fh)
    return str(path)
