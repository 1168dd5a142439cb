"""The collective flight recorder: per rank, a bounded ring of every collective the job issues.

PyTorch's own flight recorder (``TORCH_NCCL_TRACE_BUFFER_SIZE``) records NCCL only; this one sits on the
Python API, so it works the same on gloo (CPU) and NCCL. Installing it wraps the collectives of
``torch.distributed`` (:data:`OPS`); uninstalling restores the originals. Each call records, before it
enters the backend, one entry::

    {"seq": int, "op": "all_reduce", "group": {"name": "0", "size": 2, "ranks": [0, 1]},
     "tensors": [{"shape": [4], "dtype": "torch.float32"}],
     "call_site": {"file": "/abs/train.py", "line": 42, "function": "step"},
     "start_ns": int, "end_ns": int | null, "state": "started|completed|failed", "async_op": bool,
     "error": str | null, "bucket": int | null, "step": int, "root": int | null}

``root`` is the ``src``/``dst`` rank of a rooted collective (broadcast, reduce, gather, scatter), else null.
``bucket`` is DDP's gradient bucket index. DDP's bucket all-reduces stay on DDP's built-in C++ path and are
recorded per backward (:mod:`.ddp_buckets`: one entry per bucket, ``wait_ns`` = the time the rank blocked in
DDP's wait after its last gradient); ``ddp_per_bucket=True`` routes them through the Python comm hook
(:meth:`FlightRecorder.ddp_comm_hook`) for per-bucket times, at that hook's cost per step.
``step`` is the number of ``optimizer.step()`` calls this rank had made when it issued the collective
(``torch.optim``'s global step pre-hook, counted from install): identical collectives of different training
steps (DDP's bucket all-reduces) are told apart by it, so a rank that skipped one step's collective and
paired its next one with the others' (gloo and NCCL match by order, silently) is found where it happened.

``seq`` counts the collectives of one process group on this rank, from 0, as every backend does (NCCL's
``seq`` in its own recorder): a healthy job issues the same ``seq`` with the same op and shapes on every
rank of the group, which is what ``faultlib check collectives`` compares. ``call_site`` is the first frame
outside torch and faultlib (the user's line). Times are ``time.monotonic_ns()`` (ns, per host).

Cost: a frame walk and the tensors' ``shape``/``dtype`` (metadata only: no tensor data is read, no device
synchronisation); async work (``async_op=True``) is marked completed from its future's callback.

A rank that dies on a fatal signal (SIGABRT from gloo's ``std::terminate`` on a size or dtype mismatch, SIGSEGV,
SIGFPE, SIGBUS, SIGILL) runs no Python and writes no dump; :mod:`faulthandler` (enabled at install unless the
program enabled it) then writes its Python stacks to ``<dump_dir>/rank<R>.fatal``, which ``check collectives``
reads (an empty one is removed at exit).

Dumps (``<dump_dir>/rank<R>.json``, written atomically: temp file + ``os.replace``) happen on
:meth:`FlightRecorder.dump`, at interpreter exit, on ``SIGUSR1`` (main thread only), on ``SIGTERM``/``SIGINT``
(torchrun's stop signal to its workers; the dump comes first, then the signal's previous action: its handler,
or death by the signal under the default action, so the exit status is the same as without the recorder),
and from a watchdog thread when a collective has been pending longer than ``watchdog_s`` (once per pending
collective), well before the backend's own timeout (gloo/NCCL default 10-30 min).
"""

from __future__ import annotations

import atexit
import collections
import itertools
import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from faultlib.detect.distributed import fatal
from faultlib.detect.distributed.sites import FAULTLIB_DIR, torch_dir, user_call_site
from faultlib.outputs import output_dir, replace_file

FORMAT = "faultlib.flight_recorder"
VERSION = 1
#: the ``torch.distributed`` functions wrapped at install (those present in the installed torch)
OPS = ("all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor",
       "reduce", "gather", "scatter", "all_to_all", "all_to_all_single", "barrier", "all_gather_object",
       "broadcast_object_list", "send", "recv")


def _tensors(args: tuple, kwargs: dict) -> list[dict[str, Any]]:
    """Shape and dtype of every tensor among the arguments (one level of lists): metadata only."""
    out: list[dict[str, Any]] = []
    for value in itertools.chain(args, kwargs.values()):
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            shape = getattr(item, "shape", None)
            dtype = getattr(item, "dtype", None)
            if shape is not None and dtype is not None:
                out.append({"shape": list(shape), "dtype": str(dtype)})
    return out


#: the root rank argument of rooted collectives: ``op -> (keyword, position)`` in ``torch.distributed``'s signatures
ROOTS = {"broadcast": ("src", 1), "reduce": ("dst", 1), "gather": ("dst", 2), "scatter": ("src", 2),
         "broadcast_object_list": ("src", 1)}


def _root(name: str, args: tuple, kwargs: dict) -> int | None:
    """The root rank a rooted collective was given (``src``/``dst``, global rank), else None: ranks that pass
    different roots to one broadcast all wait as senders (gloo) or mix data, and their ops and shapes agree."""
    spec = ROOTS.get(name)
    if spec is None:
        return None
    value = kwargs.get(spec[0], args[spec[1]] if len(args) > spec[1] else None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _finish(entry: dict[str, Any], future: Any) -> None:
    """Mark an async collective's entry from its future: completed, or failed with the backend's error
    (a peer that left, an aborted process group)."""
    try:
        future.value()
    except Exception as exc:
        entry.update(state="failed", end_ns=time.monotonic_ns(), error=f"{type(exc).__name__}: {exc}"[:500])
        return
    entry.update(state="completed", end_ns=time.monotonic_ns())


class FlightRecorder:
    """Record every collective this rank issues in a bounded ring and dump it when it matters.

    Args:
        dump_dir: where ``rank<R>.json`` is written (created if missing).
        capacity: entries kept (oldest dropped first; ``dropped`` in the dump counts them). Default 2,048,
            as PyTorch's NCCL flight recorder's usual buffer size.
        watchdog_s: seconds a collective may stay pending before the watchdog dumps (``None``: no watchdog).
            Keep it well below the backend's timeout, above the longest healthy wait (e.g. a slow first step).
        poll_s: how often the watchdog looks (seconds; default ``min(0.5, watchdog_s / 4)``).
        on_timeout: called from the watchdog thread with the pending entry after its dump (e.g. to abort).
        signum: signal that dumps (default ``SIGUSR1``; ``None``: no handler).
        stop_signals: signals that dump and then take their previous action (default ``SIGTERM``, ``SIGINT``;
            a signal whose disposition is ``SIG_IGN`` or was set outside Python is left alone).
        ddp_per_bucket: route DDP's bucket all-reduces through the Python comm hook (registered on each DDP
            model at its first forward) for per-bucket start/end times; default off: they stay on DDP's C++
            path and are recorded per backward (:mod:`.ddp_buckets`).
        skip_paths: files or directories whose frames are not the call site (a launcher or wrapper of the
            training script), besides torch's and faultlib's own.

    Use ``with FlightRecorder(dir, watchdog_s=60): train()`` or :meth:`install` / :meth:`uninstall`.

    Raises:
        RuntimeError: :meth:`install` when another recorder is installed, or torch.distributed is unavailable.
    """

    _active: "FlightRecorder | None" = None

    def __init__(self, dump_dir: str | os.PathLike, *, capacity: int = 2048, watchdog_s: float | None = 600.0,
                 poll_s: float | None = None, on_timeout: Callable[[dict], None] | None = None,
                 signum: int | None = signal.SIGUSR1, skip_paths: tuple[str, ...] = (),
                 stop_signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT), ddp_per_bucket: bool = False):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        if watchdog_s is not None and not watchdog_s > 0:
            raise ValueError(f"watchdog_s must be > 0 seconds or None, got {watchdog_s}")
        self.dump_dir = Path(dump_dir)
        self.capacity = capacity
        self.watchdog_s = watchdog_s
        self.poll_s = poll_s if poll_s is not None else (min(0.5, watchdog_s / 4) if watchdog_s else 0.5)
        self.on_timeout = on_timeout
        self.signum = signum
        self.stop_signals = tuple(stop_signals)
        self._stopped_by: int | None = None  # the stop signal this process is ending by (kept in the exit dump)
        self._ddp: Any = None
        self.ddp_per_bucket = ddp_per_bucket
        self._ring: collections.deque[dict] = collections.deque(maxlen=capacity)
        self._recorded = 0
        self._seq: dict[str, int] = {}
        self._groups: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._originals: dict[str, Callable] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._signals: Any = None
        self._extra_skips = tuple(str(Path(x).resolve()) for x in skip_paths)
        self._skip_dirs: tuple[str, ...] = (FAULTLIB_DIR, *self._extra_skips)
        self._rank_world: tuple[int, int] | None = None
        self._steps = 0
        self._step_hook: Any = None
        self._fatal: Any = None
        self.dumps = 0

    # -- install / uninstall -------------------------------------------------------------------------------
    def install(self) -> "FlightRecorder":
        """Wrap ``torch.distributed``'s collectives, register the exit and signal dumps, start the watchdog."""
        import torch.distributed as dist

        if not dist.is_available():
            raise RuntimeError("torch.distributed is not available in this torch build")
        if FlightRecorder._active is not None:
            raise RuntimeError("a FlightRecorder is already installed in this process: uninstall it first")
        self._skip_dirs = (FAULTLIB_DIR, torch_dir(), *self._extra_skips)
        for name in OPS:
            original = getattr(dist, name, None)
            if original is not None:
                self._originals[name] = original
                setattr(dist, name, self._wrap(name, original))
        FlightRecorder._active = self
        from torch.optim.optimizer import register_optimizer_step_pre_hook

        self._step_hook = register_optimizer_step_pre_hook(self._count_step)
        from faultlib.detect.distributed.ddp_buckets import DdpBucketTap

        self._ddp = DdpBucketTap(self, per_bucket=self.ddp_per_bucket)
        self._ddp.install()
        output_dir(self.dump_dir, "dump_dir")  # created now; a symbolic link on the way: InputError
        self._fatal = fatal.enable(self.dump_dir, self._rank()[0])
        atexit.register(self._dump_at_exit)
        if threading.current_thread() is threading.main_thread():
            from faultlib.detect.distributed.dump_signals import DumpSignals

            self._signals = DumpSignals(self.dump, self.signum, self.stop_signals,
                                        before_death=self._close_fatal).install()
        if self.watchdog_s is not None or (self._signals is not None and self._signals.listening):
            self._stop.clear()
            self._thread = threading.Thread(target=self._watch, name="faultlib-flight-recorder", daemon=True)
            self._thread.start()
        return self

    def uninstall(self) -> None:
        """Restore the original functions, the signal handler and stop the watchdog (no dump)."""
        import torch.distributed as dist

        for name, original in self._originals.items():
            setattr(dist, name, original)
        self._originals.clear()
        if self._step_hook is not None:
            self._step_hook.remove()
            self._step_hook = None
        if self._ddp is not None:
            self._ddp.uninstall()
            self._ddp = None
        atexit.unregister(self._dump_at_exit)
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._signals is not None and threading.current_thread() is threading.main_thread():
            self._signals.uninstall()
            self._signals = None
        self._fatal = fatal.close(self._fatal)
        if FlightRecorder._active is self:
            FlightRecorder._active = None

    def __enter__(self) -> "FlightRecorder":
        return self.install()

    def __exit__(self, *exc: object) -> None:
        try:
            self.dump("exit")
        finally:
            self.uninstall()

    # -- recording -----------------------------------------------------------------------------------------
    def _count_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self._steps += 1

    def _group(self, dist: Any, group: Any) -> dict[str, Any]:
        pg = group if group is not None else dist.GroupMember.WORLD
        key = id(pg)
        info = self._groups.get(key)
        if info is None:
            try:
                ranks = list(dist.get_process_group_ranks(pg))
                info = {"name": str(pg.group_name), "size": int(pg.size()), "ranks": ranks}
            except Exception:  # not initialised, or a torch without these names: the call itself will say
                info = {"name": "?", "size": None, "ranks": None}
            self._groups[key] = info
        return info

    def _wrap(self, name: str, original: Callable) -> Callable:
        import torch.distributed as dist

        def recorded(*args: Any, **kwargs: Any) -> Any:
            if getattr(self._local, "inside", False):  # a collective built from others: record the outer one
                return original(*args, **kwargs)
            entry = self._record(name, dist, args, kwargs)
            self._local.inside = True
            try:
                result = original(*args, **kwargs)
            except BaseException as exc:
                entry.update(state="failed", end_ns=time.monotonic_ns(), error=f"{type(exc).__name__}: {exc}"[:500])
                raise
            finally:
                self._local.inside = False
            if entry["async_op"] and result is not None and hasattr(result, "get_future"):
                try:
                    result.get_future().add_done_callback(lambda f: _finish(entry, f))
                    return result
                except Exception:  # a backend without futures: completion unknown; count it issued
                    pass
            entry.update(state="completed", end_ns=time.monotonic_ns())
            return result

        recorded.__wrapped__ = original  # type: ignore[attr-defined]
        recorded.__name__ = original.__name__
        recorded.__doc__ = original.__doc__
        return recorded

    def _record(self, name: str, dist: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
        group = kwargs.get("group")
        info = self._group(dist, group)
        entry = {"seq": 0, "op": name, "group": info, "tensors": _tensors(args, kwargs),
                 "call_site": user_call_site(self._skip_dirs), "start_ns": time.monotonic_ns(), "end_ns": None,
                 "state": "started", "async_op": bool(kwargs.get("async_op", False)), "error": None,
                 "bucket": getattr(self._local, "bucket", None), "step": self._steps, "root": _root(name, args, kwargs)}
        if self._rank_world is None:
            self._rank()
        with self._lock:
            entry["seq"] = self._seq.get(info["name"], 0)
            self._seq[info["name"]] = entry["seq"] + 1
            self._ring.append(entry)
            self._recorded += 1
        return entry

    def _record_buckets(self, layout: list[dict[str, Any]], group: Any) -> tuple[list[dict[str, Any]], int]:
        """One ``started`` async all-reduce entry per DDP bucket (``layout``: shape/dtype per bucket), one call site
        and start time for all; returns them and the group's next ``seq`` after them (see :mod:`.ddp_buckets`)."""
        import torch.distributed as dist

        info = self._group(dist, group)
        site, now = user_call_site(self._skip_dirs), time.monotonic_ns()
        if self._rank_world is None:
            self._rank()
        entries = [{"seq": 0, "op": "all_reduce", "group": info, "tensors": [dict(t)], "call_site": site,
                    "start_ns": now, "end_ns": None, "state": "started", "async_op": True, "error": None,
                    "bucket": i, "step": self._steps, "wait_ns": None} for i, t in enumerate(layout)]
        with self._lock:
            seq = self._seq.get(info["name"], 0)
            for entry in entries:
                entry["seq"] = seq
                seq += 1
                self._ring.append(entry)
            self._seq[info["name"]] = seq
            self._recorded += len(entries)
        return entries, seq

    def _issued(self, group_name: str) -> int:
        """The next ``seq`` of a process group on this rank (collectives recorded on it so far)."""
        return self._seq.get(group_name, 0)

    def record(self, op: str, tensors: list, *, group: Any = None) -> dict[str, Any]:
        """Record a collective issued outside the wrapped functions (a DDP communication hook); returns the
        entry, to be marked with :meth:`complete`."""
        import torch.distributed as dist

        return self._record(op, dist, tuple(tensors), {"group": group} if group is not None else {})

    def ddp_comm_hook(self) -> Callable:
        """A DDP communication hook (``ddp_model.register_comm_hook(None, recorder.ddp_comm_hook())``) that runs
        DDP's default bucketed gradient all-reduce (``default_hooks.allreduce_hook``, the same mean over ranks)
        through ``dist.all_reduce``, so every bucket is recorded like a Python-API call, with ``bucket`` (DDP's
        bucket index) set and the call site of the user's ``backward()``. Without it DDP's reducer calls the
        process group from C++ and its all-reduces are not seen.

        Returns:
            ``hook(state, bucket) -> torch.futures.Future[torch.Tensor]``.
        """
        import torch
        import torch.distributed as dist
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

        def hook(state, bucket):  # type: ignore[no-untyped-def]
            self._local.bucket = bucket.index()
            try:
                return default_hooks.allreduce_hook(state, bucket)
            finally:
                self._local.bucket = None

        # DDP checks the annotations as objects (this module's are strings under `from __future__ import annotations`)
        hook.__annotations__ = {"state": object, "bucket": dist.GradBucket, "return": torch.futures.Future[torch.Tensor]}
        return hook

    @staticmethod
    def complete(entry: dict[str, Any], error: str | None = None) -> None:
        entry.update(state="failed" if error else "completed", end_ns=time.monotonic_ns(), error=error)

    # -- dumping -------------------------------------------------------------------------------------------
    def sequence_numbers(self) -> dict[str, int]:
        """``{process group name: collectives issued so far}`` on this rank (the next ``seq`` of each group):
        cheap (no copy of the ring), for a per-step metric. Ranks whose counts differ are out of step."""
        with self._lock:
            return dict(self._seq)

    def entries(self) -> list[dict[str, Any]]:
        """A copy of the ring, oldest first."""
        with self._lock:
            return [dict(e) for e in self._ring]

    def entries_since(self, start_ns: int) -> list[dict[str, Any]]:
        """Copies of the entries started at or after ``start_ns`` (``time.monotonic_ns()``), oldest first; reads
        only the ring's tail (a per-step reader such as the straggler monitor pays for one step's collectives)."""
        out: list[dict[str, Any]] = []
        with self._lock:
            for entry in reversed(self._ring):
                if entry["start_ns"] < start_ns:
                    break
                out.append(dict(entry))
        return out[::-1]

    def _rank(self) -> tuple[int, int | None]:
        """This process's rank and world size: from the default group while it exists (kept, so a dump after
        ``destroy_process_group`` still knows), else ``RANK``/``WORLD_SIZE`` as torchrun sets them."""
        try:
            import torch.distributed as dist

            if dist.is_initialized():
                self._rank_world = (dist.get_rank(), dist.get_world_size())
        except Exception:
            pass
        if self._rank_world is not None:
            return self._rank_world
        return int(os.environ.get("RANK", "0")), (int(os.environ["WORLD_SIZE"]) if "WORLD_SIZE" in os.environ else None)

    def dump(self, reason: str = "manual", *, signum: int | None = None, exit_error: str | None = None) -> Path:
        """Write ``<dump_dir>/rank<R>.json`` atomically and return its path.

        Args:
            reason: ``manual``, ``exit``, ``signal`` or ``watchdog`` (kept in the dump).
            signum: the signal that asked for the dump (its name is kept as ``signal``).
            exit_error: the uncaught exception that ended the process (``"Type: message"``, at most 500
                characters), kept as ``exit_error``: ``check collectives`` tells a rank that raised from one that
                ran out of batches.
        """
        if reason == "signal" and signum in self.stop_signals:
            self._stopped_by = signum
        rank, world = self._rank()
        entries = self.entries()
        doc = {"format": FORMAT, "version": VERSION, "rank": rank, "world_size": world, "pid": os.getpid(),
               "host": socket.gethostname(), "reason": reason,
               "signal": signal.Signals(signum).name if signum is not None else None,
               "dumped_at_ns": time.monotonic_ns(),
               "capacity": self.capacity, "dropped": self._recorded - len(entries), "entries": entries}
        if exit_error is not None:
            doc["exit_error"] = exit_error[:500]
        self.dump_dir.mkdir(parents=True, exist_ok=True)  # checked for links at install (output_dir)
        path = self.dump_dir / f"rank{rank}.json"
        replace_file(path, json.dumps(doc, indent=1).encode("utf-8"), fsync=False)
        self.dumps += 1
        return path

    def _close_fatal(self) -> None:
        """Stop the fatal-signal trace, removing it when empty (at exit, and before a stop signal ends the process)."""
        self._fatal = fatal.close(self._fatal)

    def _dump_at_exit(self) -> None:
        # an uncaught exception is printed (and kept as sys.last_exc / sys.last_value) before the exit handlers run
        exc = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
        try:
            error = f"{type(exc).__name__}: {exc}" if exc is not None else None
            if self._stopped_by is not None:  # ending by a stop signal (SIGINT's KeyboardInterrupt): say so again
                self.dump("signal", signum=self._stopped_by, exit_error=error)
            else:
                self.dump("exit", exit_error=error)
            self._close_fatal()
        except Exception as exc:  # never turn a clean exit into a traceback
            print(f"faultlib flight recorder: exit dump failed: {exc}", file=sys.stderr)

    def _watch(self) -> None:
        tripped: set[int] = set()
        while not self._stop.is_set():
            if self._signals is not None and self._signals.listening:
                self._signals.poll(self.poll_s)
            else:
                self._stop.wait(self.poll_s)
            if self.watchdog_s is None or self._stop.is_set():
                continue
            now = time.monotonic_ns()
            with self._lock:
                late = [e for e in self._ring if e["state"] == "started" and id(e) not in tripped
                        and now - e["start_ns"] > self.watchdog_s * 1e9]
            if not late:
                continue
            tripped.update(id(e) for e in late)
            try:
                path = self.dump("watchdog")
                print(f"faultlib flight recorder: {late[0]['op']} seq {late[0]['seq']} pending over "
                      f"{self.watchdog_s:g} s at {late[0]['call_site']['file']}:{late[0]['call_site']['line']}; "
                      f"dumped {path}", file=sys.stderr, flush=True)
            except Exception as exc:
                print(f"faultlib flight recorder: watchdog dump failed: {exc}", file=sys.stderr, flush=True)
            if self.on_timeout is not None:
                try:
                    self.on_timeout(dict(late[0]))
                except Exception as exc:  # the watchdog keeps watching
                    print(f"faultlib flight recorder: on_timeout raised {type(exc).__name__}: {exc}",
                          file=sys.stderr, flush=True)
