"""Which rank made a non-finite value, and through which collective the others received it.

A NaN made on one rank reaches every rank within the step through DDP's gradient all-reduce, so "NaN on
every rank" says nothing. :class:`CollectiveNonFiniteWatch` wraps the tensor collectives of
``torch.distributed`` (:data:`TENSOR_OPS`) and checks each call's tensors on this rank: finite before the
call and not finite after it = **received** through that collective; not finite before = **sent** (this
rank held it already). DDP's bucketed gradient all-reduces run in C++ unless a communication hook routes them
through ``dist.all_reduce``: :meth:`CollectiveNonFiniteWatch.install` makes every DDP model built afterwards
do so (DDP's default mean all-reduce, ``default_hooks.allreduce_hook``), and a hook the user registers is
kept (its own ``dist.all_reduce`` calls are checked the same way).

``seq`` counts the collectives of one process group on this rank from 0, as :class:`.recorder.FlightRecorder`
and every backend do, so the same ``seq`` names the same collective on every rank of the group.

Each rank notes where its own checks first saw a value (:meth:`CollectiveNonFiniteWatch.saw`); every event
takes a number from one per-process counter (``order``), so "received before it saw it" needs no clock.
:func:`first_culprit` merges the ranks' summaries: the rank whose value no collective brought is the
producer; among several, the earliest by (step, the collectives it had issued, rank), never by wall clocks.

Cost: one sum and one host read per tensor before and after each collective (NaN and inf survive a sum;
an element-wise check only when the sum is not finite). That is for tracing and for the cases, not for a
job left on for weeks (the flight recorder is: it reads no tensor data).
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import threading
from typing import Any, Callable

from faultlib.detect.distributed.sites import FAULTLIB_DIR, torch_dir, user_call_site

#: the ``torch.distributed`` functions whose tensors are checked: op -> (inputs, outputs), each a tuple of
#: (position, keyword) of the arguments that hold this rank's contribution and what the collective writes
TENSOR_OPS: dict[str, tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]] = {
    "all_reduce": (((0, "tensor"),), ((0, "tensor"),)),
    "broadcast": (((0, "tensor"),), ((0, "tensor"),)),
    "reduce": (((0, "tensor"),), ((0, "tensor"),)),
    "all_gather": (((1, "tensor"),), ((0, "tensor_list"),)),
    "all_gather_into_tensor": (((1, "input_tensor"),), ((0, "output_tensor"),)),
    "reduce_scatter": (((1, "input_list"),), ((0, "output"),)),
    "reduce_scatter_tensor": (((1, "input"),), ((0, "output"),)),
    "gather": (((0, "tensor"),), ((1, "gather_list"),)),
    "scatter": (((1, "scatter_list"),), ((0, "tensor"),)),
    "all_to_all": (((1, "input_tensor_list"),), ((0, "output_tensor_list"),)),
    "all_to_all_single": (((1, "input"),), ((0, "output"),)),
    "send": (((0, "tensor"),), ()),
    "recv": ((), ((0, "tensor"),)),
}


def _leaves(value: Any) -> list:
    items = value if isinstance(value, (list, tuple)) else (value,)
    out = []
    for item in items:
        if isinstance(item, (list, tuple)):
            out.extend(_leaves(item))
        elif getattr(item, "is_floating_point", None) is not None:
            out.append(item)
    return out


def _pick(args: tuple, kwargs: dict, where: tuple[tuple[int, str], ...]) -> list:
    """The floating-point tensors at these (position, keyword) arguments."""
    picked = [args[i] if i < len(args) else kwargs.get(name) for i, name in where]
    return _leaves([p for p in picked if p is not None])


def _finite(tensors: list) -> bool:
    """Every element of every floating-point tensor is finite (one sum and one read each)."""
    import torch

    for t in tensors:
        if not t.is_floating_point() or t.numel() == 0:
            continue
        t = t.detach()
        if not math.isfinite(float(t.sum())) and not bool(torch.isfinite(t).all()):
            return False
    return True


def _user_line() -> tuple[str | None, int | None]:
    """File and line of the innermost frame outside torch, faultlib and the standard library."""
    skip = (FAULTLIB_DIR, torch_dir(), os.path.dirname(os.__file__) + os.sep)
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith(skip) or frame.f_code.co_filename.startswith("<")):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (None, None)


class CollectiveNonFiniteWatch:
    """Per rank: the collectives that brought a non-finite value in (received) or carried one out (sent).

    Args:
        step: a callable returning the current step (0-based), stamped on each event; default: always None.
        on_event: called with each new event (dict, see :meth:`summary`), e.g. to write it down at once.
        max_events: events kept per kind (the first ones matter; later ones are counted).

    Use ``with CollectiveNonFiniteWatch() as watch: train()`` or :meth:`install` / :meth:`uninstall`; then
    :meth:`summary` on every rank, and :func:`first_culprit` over the summaries (e.g. gathered with
    ``dist.all_gather_object``, see :meth:`world_summary`).

    Raises:
        RuntimeError: :meth:`install` when torch.distributed is unavailable.
    """

    def __init__(self, *, step: Callable[[], int | None] | None = None,
                 on_event: Callable[[dict[str, Any]], None] | None = None, max_events: int = 16):
        self.step = step or (lambda: None)
        self.on_event = on_event
        self.max_events = max_events
        self.events: list[dict[str, Any]] = []
        self.counts = {"received": 0, "sent": 0}
        self.first_seen: dict[str, Any] | None = None
        self._order = itertools.count()
        self._seq: dict[str, int] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._originals: dict[str, Callable] = {}
        self._undo: list[Callable[[], None]] = []
        self._skip = (FAULTLIB_DIR,)

    # -- install -------------------------------------------------------------------------------------------
    def install(self) -> "CollectiveNonFiniteWatch":
        """Wrap the collectives and DDP's construction (see the module docstring)."""
        import torch.distributed as dist

        if not dist.is_available():
            raise RuntimeError("torch.distributed is not available in this torch build")
        self._skip = (FAULTLIB_DIR, torch_dir())
        for name, io in TENSOR_OPS.items():
            original = getattr(dist, name, None)
            if original is not None:
                self._originals[name] = original
                setattr(dist, name, self._wrap(name, original, io))
        self._patch_ddp()
        return self

    def uninstall(self) -> None:
        """Restore what :meth:`install` replaced (DDP models already built keep their hook)."""
        import torch.distributed as dist

        for name, original in self._originals.items():
            setattr(dist, name, original)
        self._originals.clear()
        while self._undo:
            self._undo.pop()()

    def __enter__(self) -> "CollectiveNonFiniteWatch":
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    def _patch_ddp(self) -> None:
        """Route DDP's bucket all-reduces through ``dist.all_reduce``: the default hook at the first forward
        unless the user registered one (``register_comm_hook`` or a built-in C++ hook) before it."""
        from torch.nn.parallel import DistributedDataParallel as DDP

        original_init, original_register = DDP.__init__, DDP.register_comm_hook
        builtin_name = "_register_builtin_comm_hook"  # C++ hooks: their all-reduces stay unseen
        original_builtin = getattr(DDP, builtin_name, None)

        def first_forward(module, args):
            handle = module.__dict__.pop("_faultlib_nonfinite_pre", None)
            if handle is not None:
                handle.remove()
            if not module.__dict__.get("_faultlib_hooked"):
                from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

                original_register(module, None, default_hooks.allreduce_hook)
                module.__dict__["_faultlib_hooked"] = True

        def init(module, *args, **kwargs):
            original_init(module, *args, **kwargs)
            module.__dict__["_faultlib_nonfinite_pre"] = module.register_forward_pre_hook(first_forward)

        def register(module, state, hook):
            module.__dict__["_faultlib_hooked"] = True
            return original_register(module, state, hook)

        def builtin(module, comm_hook_type):
            module.__dict__["_faultlib_hooked"] = True
            return original_builtin(module, comm_hook_type)

        DDP.__init__, DDP.register_comm_hook = init, register
        if original_builtin is not None:
            setattr(DDP, builtin_name, builtin)

        def undo() -> None:
            DDP.__init__, DDP.register_comm_hook = original_init, original_register
            if original_builtin is not None:
                setattr(DDP, builtin_name, original_builtin)

        self._undo.append(undo)

    # -- checking ------------------------------------------------------------------------------------------
    def _next_seq(self, dist: Any, group: Any) -> tuple[str, int]:
        pg = group if group is not None else dist.GroupMember.WORLD
        try:
            name = str(pg.group_name)
        except Exception:  # not initialised: the call itself will say
            name = "?"
        with self._lock:
            seq = self._seq.get(name, 0)
            self._seq[name] = seq + 1
        return name, seq

    def _wrap(self, name: str, original: Callable, io: tuple) -> Callable:
        import torch.distributed as dist

        def checked(*args: Any, **kwargs: Any) -> Any:
            if getattr(self._local, "inside", False):
                return original(*args, **kwargs)
            tensors, outputs = _pick(args, kwargs, io[0]), _pick(args, kwargs, io[1])
            group, seq = self._next_seq(dist, kwargs.get("group"))
            site = user_call_site(self._skip)
            finite_in = _finite(tensors)
            base = {"op": name, "seq": seq, "group": group, "call_site": site, "step": self.step()}
            if not finite_in:
                self._event("sent", base)
            self._local.inside = True
            try:
                result = original(*args, **kwargs)
            finally:
                self._local.inside = False
            if finite_in:
                if kwargs.get("async_op") and result is not None and hasattr(result, "get_future"):
                    # numbered at launch, not when the callback runs: the future's callback may run after this
                    # rank's own check saw the value the collective brought (a busy machine delays it), and that
                    # rank would be called its producer
                    launched = {**base, "order": self._number()}
                    result.get_future().add_done_callback(
                        lambda _f: None if _finite(outputs) else self._event("received", launched))
                elif not _finite(outputs):
                    self._event("received", base)
            return result

        checked.__wrapped__ = original  # type: ignore[attr-defined]
        checked.__name__, checked.__doc__ = original.__name__, original.__doc__
        return checked

    def _number(self) -> int:
        with self._lock:
            return next(self._order)

    def _event(self, role: str, base: dict[str, Any]) -> None:
        with self._lock:
            self.counts[role] += 1
            if self.counts[role] > self.max_events:
                return
            event = {"role": role, "order": next(self._order), **base}  # an async op's number is its launch's
            self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def saw(self, step: int | None, where: str, **found: Any) -> None:
        """This rank's own check first saw a non-finite value (the output of a module, a loss, gradients):
        kept once, numbered on the same counter as the collectives' events."""
        with self._lock:
            if self.first_seen is not None:
                return
            self.first_seen = {"step": step, "where": where, **found, "order": next(self._order),
                               "collectives_before": sum(self._seq.values())}
        if self.on_event is not None:
            self.on_event(dict(self.first_seen, role="seen"))

    # -- results -------------------------------------------------------------------------------------------
    def summary(self, rank: int | None = None) -> dict[str, Any]:
        """``{"rank", "first_seen", "received", "sent", "counts"}``: ``received``/``sent`` the first such event
        (``{"op", "seq", "group", "call_site", "step", "order"}``) or None."""
        if rank is None:
            rank = int(os.environ.get("RANK", "0"))
        first = {role: min((e for e in self.events if e["role"] == role), key=lambda e: e["order"], default=None)
                 for role in ("received", "sent")}
        return {"rank": rank, "first_seen": self.first_seen, **first, "counts": dict(self.counts)}

    def world_summary(self, group: Any = None) -> dict[str, Any]:
        """Every rank's :meth:`summary` gathered (``dist.all_gather_object``, a collective: call it on every
        rank at the same point) and merged by :func:`first_culprit`."""
        import torch.distributed as dist

        mine = self.summary(dist.get_rank())
        gathered: list[Any] = [None] * dist.get_world_size(group)
        self._local.inside = True  # not a tensor collective of the job
        try:
            dist.all_gather_object(gathered, mine, group=group)
        finally:
            self._local.inside = False
        return first_culprit(gathered)


def role_of(summary: dict[str, Any]) -> str:
    """``producer``: this rank saw a non-finite value that no collective had brought it; ``received``: a
    collective brought it first; ``clean``: neither."""
    seen, received = summary.get("first_seen"), summary.get("received")
    if received is not None and (seen is None or received["order"] < seen["order"]):
        return "received"
    if seen is not None or summary.get("sent") is not None:
        return "producer"
    return "clean"


def first_culprit(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge the ranks' summaries: the first rank that produced the value and how the others got it.

    The producers are ordered by (step, collectives issued before they saw it, rank): the step first, then
    the position in the collective sequence, never wall clocks (hosts' clocks differ).

    Returns:
        ``{"first_rank": int | None, "source": "rank" | "collective" | None, "ranks": [{"rank", "role",
        "first_seen", "received", "sent"}]}``; ``source`` is ``collective`` when every rank that saw a value
        received it from finite inputs everywhere (e.g. an all-reduce's sum overflowed).
    """
    ranks = []
    for s in sorted(summaries, key=lambda s: s["rank"]):
        ranks.append({"rank": s["rank"], "role": role_of(s), "first_seen": s.get("first_seen"),
                      "received": s.get("received"), "sent": s.get("sent")})

    def key(r: dict[str, Any]) -> tuple:
        seen = r["first_seen"] or {}
        sent = r["sent"] or {}
        step = seen.get("step", sent.get("step"))
        before = seen.get("collectives_before", sent.get("seq"))
        return (step if step is not None else sys.maxsize, before if before is not None else sys.maxsize, r["rank"])

    producers = sorted((r for r in ranks if r["role"] == "producer"), key=key)
    if producers:
        return {"first_rank": producers[0]["rank"], "source": "rank", "ranks": ranks}
    if any(r["role"] == "received" for r in ranks):
        return {"first_rank": None, "source": "collective", "ranks": ranks}
    return {"first_rank": None, "source": None, "ranks": ranks}


def first_consumer(model: Any, fn: Callable[[], Any]) -> dict[str, Any] | None:
    """Run ``fn`` (a forward of ``model``) and name the first aten op that consumed a non-finite input: where a
    value that was already in the data (a poisoned sample, not born in an op, so
    :class:`faultlib.detect.numerics.nan_locator.NonFiniteLocator` names no op) entered the model.

    Returns:
        ``{"module": dotted name of the innermost module running (None outside any), "op": "aten::addmm",
        "file", "line": the user's source line}``, or None when no op saw a non-finite input.
    """
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    names = {id(m): n for n, m in model.named_modules()}
    stack: list[str] = []
    found: dict[str, Any] = {}

    def enter(module: Any, _args: Any) -> None:
        stack.append(names[id(module)])

    def leave(_module: Any, _args: Any, _output: Any) -> None:
        stack.pop()

    hooks = [m.register_forward_pre_hook(enter) for m in model.modules()]
    hooks += [m.register_forward_hook(leave) for m in model.modules()]

    class Consumer(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if not found:
                for t in tree_leaves((args, kwargs or {})):
                    if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel() and \
                            not bool(torch.isfinite(t).all()):
                        file, line = _user_line()
                        found.update(module=stack[-1] if stack else None,
                                     op=f"aten::{func._schema.name.split('::')[-1]}", file=file, line=line)
                        break
            return func(*args, **(kwargs or {}))

    try:
        with torch.no_grad(), Consumer():
            fn()
    finally:
        for hook in hooks:
            hook.remove()
    return found or None
