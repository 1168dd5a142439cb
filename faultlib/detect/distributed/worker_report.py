"""What a DataLoader worker fault report holds, and the bounded descriptions it is built from.

A :class:`WorkerFaultReport` is what :class:`faultlib.detect.WorkerWatch` hands back when a worker of a
``torch.utils.data.DataLoader`` fails: ``worker_raised`` (the dataset or collate code raised; the original
traceback is kept), ``worker_killed`` (the worker died by a signal: nothing could run in it, so the index it
was loading comes from a shared-memory slot it writes before each sample) or ``worker_exited`` (it called
``exit`` with a non-zero status). Everything in it is bounded: a sample is described by type, shape, dtype
and at most a few values, never dumped.
"""

from __future__ import annotations

import dataclasses
import os
import re
import signal
from pathlib import Path
from typing import Any

from faultlib.findings import Finding, Severity

DETECTOR = "distributed.dataloader_worker"
#: the first line of the note a worker adds to an exception it raises (then one JSON object)
NOTE_PREFIX = "faultlib.worker_fault: "
MAX_ITEMS = 8          # list items, dict keys, tensor values shown
MAX_TEXT = 200         # characters of a repr
MAX_TRACEBACK = 8192   # characters of the original traceback kept
_TORCH_WORKER = re.compile(r"in DataLoader worker process (\d+)")


def summary(value: Any, depth: int = 2) -> Any:
    """A bounded, JSON-ready description of ``value``: tensors and arrays as type, shape, dtype (and their
    values when they have at most :data:`MAX_ITEMS`), containers as their first :data:`MAX_ITEMS` items,
    anything else as a repr cut at :data:`MAX_TEXT` characters. Never reads more than that of a tensor."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None and not isinstance(value, (int, float)):
        out: dict[str, Any] = {"type": type(value).__name__, "shape": [int(s) for s in shape], "dtype": str(dtype)}
        try:
            size = int(getattr(value, "numel", lambda: getattr(value, "size", MAX_ITEMS + 1))())
            if size <= MAX_ITEMS:
                out["values"] = [float(v) for v in value.reshape(-1).tolist()]
        except Exception:  # an exotic array type: shape and dtype are enough
            pass
        return out
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (str, bytes, os.PathLike)):
        text = os.fspath(value) if isinstance(value, os.PathLike) else value
        text = text if isinstance(text, str) else repr(text)
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"... ({len(text)} chars)"
    if depth > 0 and isinstance(value, (list, tuple)):
        items = [summary(v, depth - 1) for v in value[:MAX_ITEMS]]
        return items + ([f"... ({len(value)} items)"] if len(value) > MAX_ITEMS else [])
    if depth > 0 and isinstance(value, dict):
        keys = list(value)[:MAX_ITEMS]
        out = {str(k)[:MAX_TEXT]: summary(value[k], depth - 1) for k in keys}
        if len(value) > MAX_ITEMS:
            out["..."] = f"{len(value)} keys"
        return out
    try:
        text = repr(value)
    except Exception as exc:  # a broken __repr__ must not hide the fault being reported
        text = f"<{type(value).__name__}: repr failed: {type(exc).__name__}>"
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"... ({len(text)} chars)"


def describe_index(dataset: Any, index: int) -> Any:
    """What is known about sample ``index`` without loading it: ``samples[index]`` of a torchvision
    ``DatasetFolder``/``ImageFolder`` (path, class), the rows of a ``TensorDataset`` (indexing tensors in
    memory, no file read), else ``None``. Safe to call in the main process after a worker died on it."""
    try:
        for attr in ("samples", "imgs", "files", "paths"):
            items = getattr(dataset, attr, None)
            if isinstance(items, (list, tuple)) and 0 <= index < len(items):
                return summary(items[index])
        tensors = getattr(dataset, "tensors", None)
        if isinstance(tensors, tuple) and tensors:
            return [summary(t[index]) for t in tensors]
    except Exception:
        return None
    return None


def oom_kills() -> int | None:
    """The cgroup v2 ``memory.events`` ``oom_kill`` count of this process's cgroup (``None`` if unreadable)."""
    try:
        rel = Path("/proc/self/cgroup").read_text().split("::", 1)[1].strip()
        text = (Path("/sys/fs/cgroup") / rel.lstrip("/") / "memory.events").read_text()
    except (OSError, IndexError):
        return None
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill" and value.strip().isdigit():
            return int(value)
    return None


def _kernel_log_mentions(pid: int) -> str | None:
    """The kernel log's line naming ``pid`` as killed (``/dev/kmsg``, only if this user may read it)."""
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        for _ in range(4096):
            try:
                line = os.read(fd, 8192).decode("utf-8", "replace")
            except BlockingIOError:
                break
            except OSError:
                continue
            if f"Killed process {pid} " in line or f"Killed process {pid}(" in line:
                return line.split(";", 1)[-1].strip()[:MAX_TEXT]
    finally:
        os.close(fd)
    return None


def likely_cause(signum: int | None, exit_code: int | None, pid: int | None, oom_before: int | None) -> dict[str, Any]:
    """Why a worker died, from its signal and what this machine lets us read.

    SIGKILL: the kernel's OOM killer (confirmed when the cgroup's ``oom_kill`` count rose since the watch
    started, or the kernel log names the pid) or an external kill (a supervisor, ``kill -9``). SIGBUS: the
    classic cause is ``/dev/shm`` exhausted (batches travel through shared memory; Docker's default is 64 MiB:
    ``--shm-size`` or ``torch.multiprocessing.set_sharing_strategy("file_system")``). SIGSEGV: a native
    library crashed in the worker (an image decoder, or a library that is not fork-safe).
    """
    out: dict[str, Any] = {}
    oom_now = oom_kills()
    if oom_before is not None and oom_now is not None:
        out["cgroup_oom_kills"] = {"at_start": oom_before, "now": oom_now}
    if signum == signal.SIGKILL:
        kernel = _kernel_log_mentions(pid) if pid else None
        if kernel:
            out["kernel_log"] = kernel
        if kernel or (oom_before is not None and oom_now is not None and oom_now > oom_before):
            out["cause"] = "the kernel's OOM killer (memory limit of the container/cgroup reached)"
        else:
            out["cause"] = ("SIGKILL: the kernel's OOM killer or an external kill (kill -9, a supervisor); "
                            "the cgroup's oom_kill count did not rise" if oom_now is not None else
                            "SIGKILL: the kernel's OOM killer or an external kill (kill -9, a supervisor); "
                            "check `dmesg` for 'Killed process <pid>'")
    elif signum == signal.SIGBUS:
        try:
            st = os.statvfs("/dev/shm")
            out["dev_shm_free_bytes"] = st.f_bavail * st.f_frsize
            out["dev_shm_size_bytes"] = st.f_blocks * st.f_frsize
        except OSError:
            pass
        out["cause"] = ("bus error: /dev/shm exhausted (batches pass through shared memory; raise the "
                        "container's --shm-size or use the file_system sharing strategy)")
    elif signum == signal.SIGSEGV:
        out["cause"] = "segmentation fault in native code run by the worker (a decoder, a library not fork-safe)"
    elif signum is not None:
        out["cause"] = f"killed by {signal.Signals(signum).name}"
    elif exit_code is not None:
        out["cause"] = f"the worker exited with status {exit_code} (sys.exit/os._exit in dataset code?)"
    return out


@dataclasses.dataclass(frozen=True)
class WorkerFaultReport:
    """One DataLoader worker fault.

    Attributes:
        kind: ``worker_raised`` | ``worker_killed`` | ``worker_exited``.
        rank: the job's rank (``RANK``), ``None`` outside a world.
        worker_id: the DataLoader worker (0 .. num_workers-1); ``None`` when ``num_workers=0`` (main process).
        pid: the worker's process id.
        index: the dataset index being loaded (``None`` if the worker died between samples or the dataset
            loads a whole batch through its own ``__getitems__``).
        batch: the batch's dataset indices (at most 64, ``batch_size`` says how many there were).
        epoch, batch_number: which ``iterate`` call (0-based) and which batch of it (0-based; ``None`` for a
            dead worker: it died on a batch it was prefetching, which one in the epoch's order is unknown).
        sample: what is known about the sample without loading it (see :func:`describe_index`).
        frame_locals: for a raise, the bounded locals of the innermost frame of user code that raised.
        exception: ``"Type: message"`` (first line) for a raise.
        traceback: the original traceback text (at most 8 KiB) for a raise.
        signal: the signal's name (``SIGKILL``) for a kill; exit_code for an exit.
        cause: :func:`likely_cause`'s findings.
        torch_message: the first line of the message PyTorch itself raised in the main process.
    """

    kind: str
    rank: int | None
    worker_id: int | None
    pid: int | None
    index: int | None
    batch: list[int]
    batch_size: int
    epoch: int
    batch_number: int | None
    sample: Any = None
    frame_locals: dict[str, Any] | None = None
    exception: str | None = None
    traceback: str | None = None
    signal: str | None = None
    exit_code: int | None = None
    cause: dict[str, Any] = dataclasses.field(default_factory=dict)
    torch_message: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def message(self) -> str:
        who = (f"rank {self.rank} " if self.rank is not None else "") + (
            f"DataLoader worker {self.worker_id} (pid {self.pid})" if self.worker_id is not None
            else f"DataLoader main-process loading (pid {self.pid})")
        where = f"dataset index {self.index}" if self.index is not None else "a sample of the batch"
        batch = (f"batch {self.batch_number} of epoch {self.epoch}" if self.batch_number is not None
                 else f"a batch of epoch {self.epoch}") + f" ({self.batch_size} indices)"
        if self.kind == "worker_raised":
            return f"{who} raised {self.exception} on {where}, {batch}"
        if self.index is None and self.batch_size == 0 and self.kind != "worker_raised":
            how = f"killed by {self.signal}" if self.kind == "worker_killed" else f"exited with status {self.exit_code}"
            tail = f": {self.cause.get('cause', '')}" if self.cause.get("cause") else ""
            return f"{who} was {how} while idle (no sample in flight), epoch {self.epoch}{tail}"
        if self.kind == "worker_killed":
            return f"{who} was killed by {self.signal} while loading {where}, {batch}: {self.cause.get('cause', '')}"
        return f"{who} exited with status {self.exit_code} while loading {where}, {batch}"

    def render(self) -> str:
        """The report as text for a log or a terminal (bounded: traceback last)."""
        lines = [self.message(), f"  batch indices: {self.batch}{' ...' if self.batch_size > len(self.batch) else ''}"]
        if self.sample is not None:
            lines.append(f"  sample: {self.sample}")
        if self.frame_locals:
            lines.append(f"  locals: {self.frame_locals}")
        if self.torch_message:
            lines.append(f"  PyTorch said: {self.torch_message}")
        if self.traceback:
            lines.append("  original traceback:\n" + self.traceback.rstrip())
        return "\n".join(lines)

    def finding(self) -> Finding:
        severity = Severity.ERROR
        location = {k: v for k, v in (("index", self.index),) if v is not None}
        return Finding(DETECTOR, severity, self.message(), location, {**self.to_json(), "traceback": (
            self.traceback or "")[-2000:] or None}, kind=self.kind)


class WorkerFault(RuntimeError):
    """Raised by :meth:`WorkerWatch.iterate` when a worker fault is not (or no longer) skipped.

    A ``RuntimeError`` like PyTorch's own message for a dead worker; chained (``__cause__``) from the
    exception PyTorch raised. ``report`` is the :class:`WorkerFaultReport`.
    """

    def __init__(self, report: WorkerFaultReport):
        super().__init__(report.render())
        self.report = report


def torch_worker_id(message: str) -> int | None:
    """The worker id in PyTorch's ``Caught X in DataLoader worker process N`` message."""
    match = _TORCH_WORKER.search(message)
    return int(match.group(1)) if match else None
