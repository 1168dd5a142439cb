"""DataLoader worker faults: which worker, which sample, and whether it raised or was killed.

PyTorch's main process says little when a worker fails. A raise comes back as ``Caught ValueError in
DataLoader worker process 1. Original Traceback ...``: the worker id and the traceback as text, but not the
dataset index, the batch or the rank. A kill (the OOM killer's SIGKILL) comes back as ``DataLoader worker
(pid(s) 4242) is killed by signal: Killed.``, raised from a SIGCHLD handler wherever the main thread happens
to be: no worker id, no index, no sample, no cause.

:class:`WorkerWatch` wraps the dataset before the DataLoader is built and the loop that consumes it::

    watch = WorkerWatch(train_set)                    # rank from RANK; describe= optional
    loader = DataLoader(watch.dataset, batch_size=64, num_workers=2, persistent_workers=True)
    for epoch in range(epochs):
        for x, y in watch.iterate(loader):            # raises WorkerFault (a RuntimeError) with .report
            ...

In each worker the wrapped dataset writes, before each sample, its pid, the batch's indices and the index
being loaded into a per-worker slot of shared memory (a ``multiprocessing.RawArray``: stores, no system call,
no lock), so the index a worker died on is readable after a SIGKILL. A raise gets a note (PEP 678,
``add_note``) with the same facts and the bounded locals of the user's frame that raised; PyTorch carries the
note to the main process inside its traceback text, so the report binds to exactly the batch that failed
(and the note is printed even where nobody calls :meth:`WorkerWatch.iterate`). In the main process the watch
replaces PyTorch's SIGCHLD handler while it iterates: a dead worker of its own is reported at the next batch
boundary instead of as an exception in the middle of a training step; other children go to PyTorch's handler.

Mitigation (``skip_budget=N``): up to N faults per watch are skipped and logged. The bad index is
quarantined (a shared list every worker reads before each batch, including persistent workers); after a
raise the failed batch is rebuilt without it in the main process; after a kill the iterator is restarted
and the batches already consumed this epoch are loaded again and discarded (exact when the sampler is
deterministic per epoch: ``DistributedSampler`` after ``set_epoch``, ``SequentialSampler``).

Cost: a few shared-memory stores per sample and one per batch index (``benchmarks/worker_watch.py``).
Map-style datasets only (an ``IterableDataset`` has no index).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import multiprocessing
import os
import sys
import sysconfig
import traceback
from typing import Any, Callable, Iterator

from faultlib.detect.distributed.sites import FAULTLIB_DIR
from faultlib.detect.distributed.worker_deaths import (_FETCHING, _HEAD, _IDLE, _INDEX, _NBATCH, _NO_INDEX, _PID,
                                                       _RAISED, _STATE, MAX_REPORTED_BATCH, DeadWorkers)
from faultlib.detect.distributed.worker_report import (NOTE_PREFIX, WorkerFault, WorkerFaultReport,
                                                       describe_index, oom_kills, summary,
                                                       torch_worker_id)

#: the latest watches, held (a user may keep only ``watch.dataset``), bounded: older ones are not explained
_WATCHES: "collections.deque[WorkerWatch]" = collections.deque(maxlen=8)
_LIBRARY_DIRS = tuple({os.path.realpath(p) + os.sep for p in (sysconfig.get_paths()["stdlib"],
                       sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])})


def _user_frame_locals(tb: Any) -> dict[str, Any] | None:
    """Bounded locals of the innermost traceback frame in user code (not the stdlib, site-packages or faultlib)."""
    chosen = None
    while tb is not None:
        path = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if not path.startswith(_LIBRARY_DIRS) and not path.startswith(FAULTLIB_DIR):
            chosen = tb.tb_frame
        tb = tb.tb_next
    if chosen is None:
        return None
    names = [n for n in chosen.f_locals if n != "self" and not n.startswith("__")][:8]
    return {"function": chosen.f_code.co_name, "line": chosen.f_lineno,
            **{n: summary(chosen.f_locals[n], depth=1) for n in names}}


class WatchedDataset:
    """The dataset a :class:`WorkerWatch` hands to the DataLoader: the user's map-style dataset plus the
    shared slots. Picklable (spawn/forkserver workers receive the shared memory while they are started)."""

    def __init__(self, inner: Any, slots: Any, quarantine: Any, width: int, max_workers: int, rank: int | None,
                 describe: Callable[[int], Any] | None):
        self.inner, self._slots, self._quarantine = inner, slots, quarantine
        self._width, self._max_workers, self._rank, self._describe = width, max_workers, rank, describe
        self._seen_quarantine, self._skip = 0, frozenset()

    def __len__(self) -> int:
        return len(self.inner)

    def __getattr__(self, name: str) -> Any:  # the user's dataset attributes (classes, samples ...)
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _slot(self) -> tuple[int | None, int]:
        from torch.utils.data import get_worker_info

        info = get_worker_info()
        wid = None if info is None else info.id
        slot = self._max_workers if wid is None or wid >= self._max_workers else wid
        return wid, slot * self._width

    def _skipped(self) -> frozenset[int]:
        count = self._quarantine[0]
        if count != self._seen_quarantine:
            self._skip, self._seen_quarantine = frozenset(self._quarantine[1:count + 1]), count
        return self._skip

    def __getitems__(self, indices: list[int]) -> list[Any]:
        skip = self._skipped()
        if skip:
            indices = [i for i in indices if i not in skip]
        wid, base = self._slot()
        slots = self._slots
        n = min(len(indices), self._width - _HEAD)
        slots[base + _PID] = os.getpid()
        slots[base + _NBATCH] = len(indices)
        slots[base + _HEAD:base + _HEAD + n] = indices[:n]
        slots[base + _STATE] = _FETCHING
        index = _NO_INDEX
        try:
            inner_batch = getattr(self.inner, "__getitems__", None)
            if inner_batch:
                slots[base + _INDEX] = _NO_INDEX
                out = inner_batch(indices)
            else:
                out = []
                for index in indices:
                    slots[base + _INDEX] = index
                    out.append(self.inner[index])
        except BaseException as exc:
            slots[base + _STATE] = _RAISED
            self._note(exc, wid, None if index == _NO_INDEX else index, indices)
            raise
        slots[base + _STATE] = _IDLE
        return out

    def __getitem__(self, index: int) -> Any:
        return self.__getitems__([index])[0]

    def _note(self, exc: BaseException, wid: int | None, index: int | None, indices: list[int]) -> None:
        if not hasattr(exc, "add_note"):  # Python 3.10: the slot (state RAISED, index) is all there is
            return
        try:
            sample = self._describe(index) if self._describe and index is not None else None
            info = {"rank": self._rank, "worker_id": wid, "pid": os.getpid(), "index": index,
                    "batch": list(indices[:MAX_REPORTED_BATCH]), "batch_size": len(indices),
                    "sample": summary(sample) if sample is not None else None,
                    "frame_locals": _user_frame_locals(exc.__traceback__)}
            exc.add_note(NOTE_PREFIX + json.dumps(info, default=str))
        except Exception:  # the report must never replace the user's own exception
            pass


class WorkerWatch(DeadWorkers):
    """Watch the DataLoader workers of one dataset; name the worker, index, sample and cause of a fault.

    Args:
        dataset: a map-style dataset (``__getitem__`` + ``__len__``).
        rank: the job's rank for the report (default: ``RANK`` from the environment, as torchrun sets it).
        describe: ``describe(index) -> object`` for the report's ``sample`` (a path, a row id); it must not
            load the sample (it also runs in the main process after a worker died on it). Default: the
            dataset's ``samples``/``imgs`` entry (torchvision folders) or its ``TensorDataset`` rows.
        max_workers: slots in shared memory (a DataLoader with more workers is refused).
        max_batch: batch indices recorded per worker (larger batches keep their first ``max_batch``).
        skip_budget: faults skipped and logged before :class:`WorkerFault` is raised (0: raise at once).
        quarantine_size: at most this many indices can be quarantined.

    Attributes:
        dataset: the wrapped dataset to build the DataLoader on.
        reports: every :class:`WorkerFaultReport` so far (skipped or raised).

    Raises:
        TypeError: ``dataset`` is an ``IterableDataset`` (no index to name).
    """

    def __init__(self, dataset: Any, *, rank: int | None = None, describe: Callable[[int], Any] | None = None,
                 max_workers: int = 32, max_batch: int = 1024, skip_budget: int = 0, quarantine_size: int = 256):
        from torch.utils.data import IterableDataset

        if isinstance(dataset, IterableDataset):
            raise TypeError("WorkerWatch needs a map-style dataset (__getitem__/__len__); an IterableDataset "
                            "has no dataset index to report")
        if rank is None and os.environ.get("RANK", "").isdigit():
            rank = int(os.environ["RANK"])
        self.rank, self.skip_budget, self.max_workers = rank, skip_budget, max_workers
        self._width = _HEAD + max_batch
        self._slots = multiprocessing.RawArray("q", self._width * (max_workers + 1))
        self._quarantine = multiprocessing.RawArray("q", quarantine_size + 1)
        self._describe = describe
        self.dataset = WatchedDataset(dataset, self._slots, self._quarantine, self._width, max_workers, rank, describe)
        self.reports: list[WorkerFaultReport] = []
        self.quarantined: list[int] = []
        self._epoch = -1
        self._oom_start = oom_kills()
        self._dead: WorkerFaultReport | None = None
        self._procs: dict[int, Any] = {}
        self._reported: set[int] = set()  # pids of dead workers already reported
        self._in_next = False
        self._position = (0, 0)
        _report_uncaught(self)

    # -- the main process -------------------------------------------------------------------------------
    def iterate(self, loader: Any, *, epoch: int | None = None) -> Iterator[Any]:
        """Yield ``loader``'s batches; report (and, within ``skip_budget``, skip) worker faults.

        Args:
            loader: a ``DataLoader`` built on :attr:`dataset`.
            epoch: the epoch number for reports (default: how many times ``iterate`` was called, from 0).

        Raises:
            ValueError: ``loader`` is not built on this watch's dataset, or has more than ``max_workers``.
            WorkerFault: a worker raised, was killed or exited, beyond ``skip_budget``.
        """
        if not self._reaches(loader.dataset):
            raise ValueError("build the DataLoader on watch.dataset (the wrapped dataset, or a Subset/random_split "
                             "of it), not on the original")
        if loader.num_workers > self.max_workers:
            raise ValueError(f"DataLoader has {loader.num_workers} workers; WorkerWatch(max_workers="
                             f"{self.max_workers}) has slots for fewer")
        self._epoch = self._epoch + 1 if epoch is None else epoch
        consumed = 0
        it = self._start(loader)
        try:
            while True:
                self._position = (self._epoch, consumed)
                try:
                    batch = self._next(it)
                except StopIteration:
                    return
                except WorkerFault as fault:  # a worker died: restart the iterator without its sample
                    self._skip_or_raise(fault.report, fault.__cause__)
                    it = self._restart(loader, it, consumed)
                    continue
                except Exception as exc:
                    report = self._raised(exc, loader)
                    if report is None:
                        raise
                    self._skip_or_raise(report, exc)
                    batch = self._rebuild(loader, report)
                    if batch is None:
                        continue
                consumed += 1
                yield batch
        except Exception:  # a fault beyond the budget ends this iterator: no worker is left behind
            self._close(loader, it)
            raise
        finally:
            self._restore_handler()

    def _reaches(self, dataset: Any) -> bool:
        """Whether ``dataset`` is :attr:`dataset` or wraps it through ``.dataset`` (``Subset``, ``random_split``):
        indices in reports are then the watched dataset's own."""
        for _ in range(8):
            if dataset is self.dataset:
                return True
            dataset = getattr(dataset, "dataset", None)
            if dataset is None:
                return False
        return False

    def findings(self) -> list:
        """Every report as a :class:`faultlib.findings.Finding` (detector ``distributed.dataloader_worker``)."""
        return [r.finding() for r in self.reports]

    def _start(self, loader: Any) -> Any:
        it = iter(loader)
        self._procs = {i: w for i, w in enumerate(getattr(it, "_workers", []) or []) if w.pid}
        self._install_handler()
        return it

    def _next(self, it: Any) -> Any:
        if self._dead is not None:
            dead, self._dead = self._dead, None
            raise WorkerFault(dead)
        self._in_next = True
        try:
            return next(it)
        except (WorkerFault, StopIteration):
            raise
        except Exception as exc:  # PyTorch's own "exited unexpectedly", or a batch the dead worker still owned
            if isinstance(exc.__cause__, WorkerFault):  # ours, raised inside PyTorch's queue wait
                raise exc.__cause__ from exc
            dead = self._dead_after_error(exc)
            if dead is None:
                raise
            self._dead = None
            first = (str(exc).strip().splitlines() or [""])[0]
            said = first if isinstance(exc, RuntimeError) else f"{type(exc).__name__}: {first}"
            raise WorkerFault(dataclasses.replace(dead, torch_message=said)) from exc
        finally:
            self._in_next = False

    def _skip_or_raise(self, report: WorkerFaultReport, cause: BaseException | None) -> None:
        self.reports.append(report)
        if len(self.reports) > self.skip_budget:
            raise WorkerFault(report) from cause
        print(f"faultlib: skipped ({len(self.reports)}/{self.skip_budget}): {report.message()}", file=sys.stderr)
        if report.index is not None and report.index not in self.quarantined:
            if len(self.quarantined) < len(self._quarantine) - 1:
                self.quarantined.append(report.index)
                self._quarantine[len(self.quarantined)] = report.index
                self._quarantine[0] = len(self.quarantined)

    def _rebuild(self, loader: Any, report: WorkerFaultReport) -> Any:
        """The failed batch without its quarantined index, loaded in the main process (``None``: nothing left
        or the batch's indices were not all recorded)."""
        if report.index is None or report.batch_size > len(report.batch):
            return None
        keep = [i for i in report.batch if i not in set(self.quarantined)]
        if not keep:
            return None
        samples = self.dataset.__getitems__(keep)
        return loader.collate_fn(samples) if loader.batch_size is not None else samples[0]

    @staticmethod
    def _close(loader: Any, it: Any) -> None:
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
        if getattr(loader, "_iterator", None) is it:
            loader._iterator = None  # a persistent_workers loader would hand back the broken iterator

    def _restart(self, loader: Any, it: Any, consumed: int) -> Any:
        self._close(loader, it)
        it = self._start(loader)
        for _ in range(consumed):  # the batches already consumed this epoch, loaded again and discarded
            next(it)
        return it

    def _raised(self, exc: BaseException, loader: Any) -> WorkerFaultReport | None:
        """The report of an exception a worker (or the main process, ``num_workers=0``) raised; ``None`` when
        the exception did not come from loading a sample."""
        text = str(exc)
        notes = [n for n in getattr(exc, "__notes__", []) if n.startswith(NOTE_PREFIX)]
        lines = [ln for ln in text.splitlines() if ln.startswith(NOTE_PREFIX)] or notes
        if not lines:
            return None
        info = json.loads(lines[-1][len(NOTE_PREFIX):])
        if notes:  # num_workers=0: the exception itself, in this process
            original = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            headline, torch_message = f"{type(exc).__name__}: {exc}", None
        else:
            original = "\n".join(ln for ln in text.split("Original ", 1)[-1].splitlines()
                                 if not ln.startswith(NOTE_PREFIX))
            head = [ln for ln in original.splitlines() if ln and not ln.startswith((" ", NOTE_PREFIX))]
            headline, torch_message = (head[-1] if head else type(exc).__name__), text.splitlines()[0]
        index = info.get("index")
        sample = info.get("sample")
        if sample is None and index is not None and self._describe is None:
            sample = describe_index(self.dataset.inner, index)
        wid = info.get("worker_id")
        if wid is None and not notes:
            wid = torch_worker_id(text)
        epoch, batch_number = self._position
        return WorkerFaultReport(
            kind="worker_raised", rank=self.rank, worker_id=wid, pid=info.get("pid"), index=index,
            batch=info.get("batch") or [], batch_size=int(info.get("batch_size") or 0), epoch=epoch,
            batch_number=batch_number, sample=sample, frame_locals=info.get("frame_locals"),
            exception=headline[:400], traceback=original[-8192:], torch_message=torch_message)


def _report_uncaught(watch: WorkerWatch) -> None:
    """Register ``watch`` with the process's ``sys.excepthook`` (chained, installed once): an uncaught dead-worker
    error from a loader iterated outside :meth:`WorkerWatch.iterate` is followed by the worker's report."""
    _WATCHES.append(watch)
    if getattr(sys.excepthook, "_faultlib_worker_watch", False):
        return
    previous = sys.excepthook

    def hook(kind: type, value: BaseException, tb: Any) -> None:
        previous(kind, value, tb)
        for w in reversed(_WATCHES):
            report = w.explain(value)
            if report is not None:
                print(NOTE_PREFIX + json.dumps(report.to_json(), default=str) + "\n" + report.render(),
                      file=sys.stderr, flush=True)
                return

    hook._faultlib_worker_watch = True  # type: ignore[attr-defined]
    sys.excepthook = hook
