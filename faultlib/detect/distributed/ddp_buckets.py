"""DDP's bucketed gradient all-reduces, recorded without taking them off DDP's C++ path.

DDP's reducer issues one all-reduce per gradient bucket from C++ during ``backward()``; no Python function is
called for it, so the flight recorder's wrappers of ``torch.distributed`` never see it. Routing the buckets
through a Python communication hook (:meth:`FlightRecorder.ddp_comm_hook`) records each one but costs every
step DDP's C++ all-reduce (measured: built-in DDP / Python hook = 1.06-1.17 per step on a 2-rank gloo MLP,
``benchmarks/flight_recorder_overhead.py``). This tap keeps the built-in all-reduce and infers the entries:

- ``DistributedDataParallel.forward`` (patched on the class while installed) puts a pre-hook on the autograd
  nodes of the forward's output tensors when the forward arms a gradient sync (grad enabled,
  ``require_backward_grad_sync``: not under ``no_sync()``; no Python comm hook registered: with one, its own
  ``torch.distributed`` calls are recorded as usual);
- that hook runs when ``backward()`` reaches the output, before any parameter gradient: it records one
  ``started`` all-reduce entry per bucket of the reducer's current layout (``bucket`` = DDP's bucket index,
  ``tensors`` = the bucket's flat buffer shape and dtype, the user's ``backward()`` line as call site) and
  queues an autograd final callback;
- autograd runs final callbacks in queue order, and DDP queues its ``finalize_backward`` (which waits for every
  bucket's all-reduce) when the last bucket is ready, after ours: ours notes the time the rank starts waiting
  and queues a second callback, which runs after DDP's wait and marks the entries ``completed``;
- ``torch.autograd.backward`` (patched while installed) marks the entries of a backward that raised
  (a peer left, the process group was aborted) ``failed`` with the error.

Timing is per backward, not per bucket: every entry of one backward has ``start_ns`` = the backward's start,
``end_ns`` = when DDP's reducer had every bucket reduced, and ``wait_ns`` = the time this rank blocked in DDP's
wait after its last gradient (the collective wait the straggler monitor reads). Per-bucket times need the
Python hook: ``FlightRecorder(..., ddp_per_bucket=True)`` registers it on each DDP model at its first forward.

The bucket layout comes from the reducer (``Reducer._get_zeros_like_grad_buckets``, read when the layout can
change: the first backward and after DDP rebuilds its buckets in the second iteration; it allocates a
transient zero copy of the gradients). The count is checked against the process group's own sequence number
(``ProcessGroup._get_sequence_number_for_group``, gloo and NCCL): a backward whose C++ all-reduce count
differs from the layout's warns once and re-reads the layout. Known limits: a built-in C++ comm hook
(``_register_builtin_comm_hook(FP16_COMPRESS)``) all-reduces another dtype than recorded; collectives issued
from Python during the backward take sequence numbers after the buckets'.
"""

from __future__ import annotations

import threading
import time
import warnings
import weakref
from typing import Any, Callable

#: per DDP model: (buckets rebuilt?, layout); kept across installs (reading a layout allocates the gradients' size)
_LAYOUTS: "weakref.WeakKeyDictionary[Any, tuple[bool, list[dict[str, Any]]]]" = weakref.WeakKeyDictionary()


class _Backward:
    """One armed backward of one DDP model."""

    __slots__ = ("ddp", "fired", "entries", "seq0", "group_seq0", "wait_start_ns")

    def __init__(self, ddp: Any):
        self.ddp = weakref.ref(ddp)
        self.fired = False
        self.entries: list[dict[str, Any]] = []
        self.seq0: int | None = None
        self.group_seq0 = 0
        self.wait_start_ns: int | None = None


def _pg_seq(pg: Any) -> int | None:
    try:
        return int(pg._get_sequence_number_for_group())
    except Exception:  # a backend without sequence numbers (MPI, a custom one): the count is not checked
        return None


class DdpBucketTap:
    """Record DDP's built-in bucket all-reduces into ``recorder`` (see the module's docstring).

    Args:
        recorder: the installed :class:`~faultlib.detect.distributed.recorder.FlightRecorder`.
        per_bucket: register the recorder's Python comm hook on each DDP model at its first forward instead
            (per-bucket times, at the Python hook's cost per step).
    """

    def __init__(self, recorder: Any, *, per_bucket: bool = False):
        self.recorder = recorder
        self.per_bucket = per_bucket
        self._originals: dict[str, Callable] = {}
        self._hooked: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._pending: list[_Backward] = []
        self._lock = threading.Lock()
        self._warned = False

    def install(self) -> None:
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        forward, backward = DDP.forward, torch.autograd.backward
        self._originals = {"forward": forward, "backward": backward}
        tap = self

        def ddp_forward(ddp: Any, *args: Any, **kwargs: Any) -> Any:
            if tap.per_bucket and ddp not in tap._hooked:
                tap._register_hook(ddp)
            out = forward(ddp, *args, **kwargs)
            if torch.is_grad_enabled() and ddp.require_backward_grad_sync and not getattr(ddp, "_comm_hooks", None):
                tap._arm(ddp, out)
            return out

        def autograd_backward(*args: Any, **kwargs: Any) -> Any:
            try:
                return backward(*args, **kwargs)
            except BaseException as exc:
                tap._fail(f"{type(exc).__name__}: {exc}"[:500])
                raise

        ddp_forward.__wrapped__ = forward  # type: ignore[attr-defined]
        autograd_backward.__wrapped__ = backward  # type: ignore[attr-defined]
        DDP.forward = ddp_forward
        torch.autograd.backward = autograd_backward

    def uninstall(self) -> None:
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP

        if self._originals:
            DDP.forward = self._originals["forward"]
            torch.autograd.backward = self._originals["backward"]
            self._originals = {}

    # -- the per-step path -------------------------------------------------------------------------------------
    def _register_hook(self, ddp: Any) -> None:
        self._hooked.add(ddp)
        if getattr(ddp, "_comm_hooks", None):
            return
        try:
            ddp.register_comm_hook(None, self.recorder.ddp_comm_hook())
        except Exception as exc:  # e.g. registered too late: keep the inferred entries
            warnings.warn(f"FlightRecorder(ddp_per_bucket=True): DDP's comm hook could not be registered ({exc}); "
                          "recording its buckets per backward", RuntimeWarning, stacklevel=3)

    def _arm(self, ddp: Any, out: Any) -> None:
        """A pre-hook on the output's autograd node (half the cost of ``Tensor.register_hook``, measured 5 vs 10 µs):
        it runs when the backward reaches the output, before any parameter gradient."""
        import torch

        state = _Backward(ddp)
        if isinstance(out, torch.Tensor):
            leaves: Any = (out,)
        else:
            from torch.utils._pytree import tree_leaves

            leaves = tree_leaves(out)
        for leaf in leaves:
            node = getattr(leaf, "grad_fn", None) if isinstance(leaf, torch.Tensor) else None
            if node is not None:
                node.register_prehook(lambda grads, s=state: self._started(s))

    def _started(self, state: _Backward) -> None:
        if state.fired:
            return
        state.fired = True
        ddp = state.ddp()
        if ddp is None:
            return
        from torch.autograd import Variable

        pg = ddp.process_group
        state.seq0 = _pg_seq(pg)
        state.entries, state.group_seq0 = self.recorder._record_buckets(self._layout(ddp), pg)
        with self._lock:
            self._pending.append(state)
        Variable._execution_engine.queue_callback(lambda: self._compute_done(state))

    def _compute_done(self, state: _Backward) -> None:
        from torch.autograd import Variable

        state.wait_start_ns = time.monotonic_ns()
        Variable._execution_engine.queue_callback(lambda: self._reduced(state))  # after DDP's finalize_backward

    def _reduced(self, state: _Backward) -> None:
        now = time.monotonic_ns()
        wait = now - (state.wait_start_ns or now)
        for entry in state.entries:
            entry.update(state="completed", end_ns=now, wait_ns=wait)
        with self._lock:
            if state in self._pending:
                self._pending.remove(state)
        ddp = state.ddp()
        if ddp is None or state.seq0 is None or not state.entries:
            return
        seq = _pg_seq(ddp.process_group)
        others = self.recorder._issued(state.entries[0]["group"]["name"]) - state.group_seq0
        issued = None if seq is None else seq - state.seq0 - others
        if issued is not None and issued != len(state.entries):
            _LAYOUTS.pop(ddp, None)
            if not self._warned:
                self._warned = True
                warnings.warn(f"FlightRecorder: DDP issued {issued} bucket all-reduce(s) in this backward, its bucket "
                              f"layout said {len(state.entries)}; the entries of this backward are approximate",
                              RuntimeWarning, stacklevel=2)

    def _fail(self, error: str) -> None:
        now = time.monotonic_ns()
        with self._lock:
            pending, self._pending = self._pending, []
        for state in pending:
            for entry in state.entries:
                if entry["state"] == "started":
                    entry.update(state="failed", end_ns=now, error=error)

    def _layout(self, ddp: Any) -> list[dict[str, Any]]:
        """``[{"shape": [numel], "dtype": str}]`` per bucket, in DDP's bucket order (cached per layout)."""
        rebuilt = bool(getattr(ddp, "_has_rebuilt_buckets", False))
        cached = _LAYOUTS.get(ddp)
        if cached is not None and cached[0] == rebuilt:
            return cached[1]
        buckets = ddp.reducer._get_zeros_like_grad_buckets()
        layout = [{"shape": [int(b.buffer().numel())], "dtype": str(b.buffer().dtype)}
                  for b in sorted(buckets, key=lambda b: b.index())]
        del buckets
        _LAYOUTS[ddp] = (rebuilt, layout)
        return layout
