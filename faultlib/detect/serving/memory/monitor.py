"""GPU memory fragmentation, watched while a workload runs: :class:`MemoryMonitor`.

PyTorch's CUDA caching allocator keeps freed blocks in cached segments (``cudaMalloc``'d once) and
splits them for later requests. When request sizes vary and blocks are freed out of order, the free
space ends up in pieces inside segments that still hold live blocks: it cannot be released
(``empty_cache`` frees only wholly free segments) and serves only requests smaller than its pieces.
A larger request then needs a new segment; near the memory limit the allocator frees every cached
segment, synchronises and retries ``cudaMalloc`` (``num_alloc_retries``), or raises an OOM although
plenty is "free". Throughput drops long before anything fails.

:class:`MemoryMonitor` samples ``torch.cuda.memory_stats()`` once per step (cheap: a dict from the
allocator, no synchronisation) and, when ``nvidia-ml-py`` is installed and a driver answers, NVML's
device memory. Per sample (:class:`MemorySample`):

- ``fragmentation = inactive_split_bytes / reserved_bytes`` ("all" pools, ``current``): the fraction
  of reserved memory that is free but non-releasable because it sits beside live blocks, the
  allocator's own measure of split cached memory (``torch.cuda.memory_stats`` docs: "inactive,
  non-releasable memory"); 0 when nothing is reserved;
- ``alloc_retries`` / ``ooms``: the allocator's counters ``num_alloc_retries`` ("failed cudaMalloc
  calls that result in a cache flush and retry") and ``num_ooms``;
- ``throughput``: items per second of the sampled step, when the caller gives ``items``.

Findings (:data:`KINDS`), each raised once per episode and re-armed when the condition clears:
``allocator_fragmentation`` (fragmentation at or above ``fragmentation_threshold`` for ``sustain``
consecutive samples while at least ``min_reserved_bytes`` is reserved), ``alloc_retries`` (the retry
counter grew; DeepSpeed warns on the same counter: "pytorch allocator cache flushes since last step.
this happens when there is high memory pressure and is detrimental to performance"), ``cuda_oom``
(the OOM counter grew) and ``throughput_drop`` (throughput below ``1 - throughput_drop`` of the
baseline, the median of the first ``baseline_samples`` samples after ``warmup``, for ``sustain``
samples; the evidence carries the fragmentation at the time and the Pearson correlation of
fragmentation and throughput over the run).

Offline, :mod:`faultlib.detect.serving.memory.snapshot` reads a ``torch.cuda.memory._snapshot()`` pickle.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

from faultlib.errors import DetectorError, MissingDependency
from faultlib.findings import Finding, Severity

DETECTOR = "memory"
MiB = 1 << 20
KINDS = {
    "allocator_fragmentation": "a sustained share of reserved GPU memory is free but split beside live blocks "
                               "(inactive_split_bytes / reserved_bytes)",
    "alloc_retries": "the caching allocator flushed its cache and retried cudaMalloc (num_alloc_retries grew)",
    "cuda_oom": "the caching allocator raised an out-of-memory error (num_ooms grew)",
    "throughput_drop": "throughput fell below the baseline for several samples (with the fragmentation at the time)",
}


@dataclass(frozen=True)
class MemorySample:
    """One sample of the allocator's state (bytes are bytes; counters are cumulative since process start).

    Attributes:
        step: the caller's step, or ``None``.
        time_s: seconds since the monitor was created (monotonic clock).
        reserved_bytes: memory in cached segments (``reserved_bytes.all.current``).
        allocated_bytes: memory in live blocks (``allocated_bytes.all.current``).
        active_bytes: live blocks plus blocks awaiting free (``active_bytes.all.current``).
        inactive_split_bytes: free memory inside segments with live blocks (``inactive_split_bytes.all.current``).
        fragmentation: ``inactive_split_bytes / reserved_bytes`` in [0, 1] (0 when nothing is reserved).
        alloc_retries: ``num_alloc_retries``.
        ooms: ``num_ooms``.
        device_allocs: ``num_device_alloc`` (cudaMalloc and cuMemMap calls), ``None`` on older torch.
        device_frees: ``num_device_free``, ``None`` on older torch.
        throughput: items per second of the sampled interval, or ``None``.
        nvml_used_bytes: device memory in use as NVML reports it (all processes), or ``None``.
        nvml_total_bytes: device memory size from NVML, or ``None``.
    """

    step: int | None
    time_s: float
    reserved_bytes: int
    allocated_bytes: int
    active_bytes: int
    inactive_split_bytes: int
    fragmentation: float
    alloc_retries: int
    ooms: int
    device_allocs: int | None = None
    device_frees: int | None = None
    throughput: float | None = None
    nvml_used_bytes: int | None = None
    nvml_total_bytes: int | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def sample_from_stats(stats: dict[str, Any], *, step: int | None = None, time_s: float = 0.0,
                      throughput: float | None = None) -> MemorySample:
    """A :class:`MemorySample` from a ``torch.cuda.memory_stats()`` dict (missing counters read as 0).

    Raises:
        DetectorError: ``stats`` is not a mapping.
    """
    if not isinstance(stats, dict):
        raise DetectorError("memory stats must be the dict torch.cuda.memory_stats() returns, "
                            f"got {type(stats).__name__}")

    def get(key: str, default: int | None = 0) -> int | None:
        value = stats.get(key, default)
        return int(value) if isinstance(value, (int, float)) else default

    reserved = get("reserved_bytes.all.current") or 0
    split = get("inactive_split_bytes.all.current") or 0
    return MemorySample(step=step, time_s=time_s, reserved_bytes=reserved,
                        allocated_bytes=get("allocated_bytes.all.current") or 0,
                        active_bytes=get("active_bytes.all.current") or 0, inactive_split_bytes=split,
                        fragmentation=min(1.0, split / reserved) if reserved else 0.0,
                        alloc_retries=get("num_alloc_retries") or 0, ooms=get("num_ooms") or 0,
                        device_allocs=get("num_device_alloc", None), device_frees=get("num_device_free", None),
                        throughput=throughput)


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r of two equally long series, or ``None`` with fewer than 3 points or no variance."""
    if len(xs) != len(ys) or len(xs) < 3:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else None


class _Nvml:
    """Device memory through NVML (``nvidia-ml-py``'s ``pynvml``), for one device index."""

    def __init__(self, index: int):
        import pynvml

        self._pynvml = pynvml
        pynvml.nvmlInit()
        self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)

    def __call__(self) -> tuple[int, int]:
        info = self._pynvml.nvmlDeviceGetMemoryInfo(self._handle)
        return int(info.used), int(info.total)


class MemoryMonitor:
    """Sample the CUDA caching allocator once per step and relate fragmentation to throughput.

    Life cycle: configure, then :meth:`sample` once per step (after the step's work), then
    :meth:`check` for the findings raised since the last check. Cost per sample: one
    ``torch.cuda.memory_stats()`` call (tens of microseconds, no device synchronisation) and, with
    NVML, one ``nvmlDeviceGetMemoryInfo``.

    Args:
        device: CUDA device (index, ``torch.device`` or ``None`` for the current one).
        fragmentation_threshold: ratio ``inactive_split_bytes / reserved_bytes`` at or above which a
            sample counts as fragmented (default 0.15; our choice, see :mod:`faultlib.detect.serving.memory.analysis`).
        min_reserved_bytes: below this much reserved memory fragmentation is not reported (default
            64 MiB: small caches fragment harmlessly).
        sustain: consecutive samples a condition must hold before it is reported (default 3).
        throughput_drop: fraction below the baseline that counts as a drop (default 0.25).
        baseline_samples: samples whose median throughput is the baseline (default 5).
        warmup: first samples left out of the baseline (default 1: CUDA context, cuBLAS workspace).
        nvml: ``"auto"`` (use NVML when it answers), ``True`` (require it) or ``False``.
        stats_source: callable returning a ``torch.cuda.memory_stats()`` dict; default: that
            function for ``device`` (needs torch with CUDA). Pass one to replay recorded stats.
        nvml_source: callable returning ``(used_bytes, total_bytes)``; replaces NVML.

    Raises:
        DetectorError: a threshold out of range, or no ``stats_source`` and no usable CUDA device.
        MissingDependency: ``nvml=True`` and ``nvidia-ml-py`` is not installed.
    """

    def __init__(self, device: Any = None, *, fragmentation_threshold: float = 0.15,
                 min_reserved_bytes: int = 64 * MiB, sustain: int = 3, throughput_drop: float = 0.25,
                 baseline_samples: int = 5, warmup: int = 1, nvml: bool | str = "auto",
                 stats_source: Callable[[], dict[str, Any]] | None = None,
                 nvml_source: Callable[[], tuple[int, int]] | None = None):
        if not 0 < fragmentation_threshold <= 1 or not 0 < throughput_drop < 1:
            raise DetectorError("fragmentation_threshold must be in (0, 1] and throughput_drop in (0, 1)")
        if sustain < 1 or baseline_samples < 1 or warmup < 0:
            raise DetectorError("sustain and baseline_samples must be >= 1, warmup >= 0")
        self.fragmentation_threshold = fragmentation_threshold
        self.min_reserved_bytes = int(min_reserved_bytes)
        self.sustain = int(sustain)
        self.throughput_drop = throughput_drop
        self.baseline_samples = int(baseline_samples)
        self.warmup = int(warmup)
        self.samples: list[MemorySample] = []
        self.nvml_status = "disabled"
        self._stats = stats_source or self._torch_stats(device)
        self._nvml = nvml_source
        if nvml_source is not None:
            self.nvml_status = "source"
        elif nvml:
            self._nvml = self._open_nvml(device, required=nvml is True)
        self._start = time.monotonic()
        self._last_time: float | None = None
        self._pending: list[Finding] = []
        self._streak = {"fragmentation": 0, "retries": 0, "throughput": 0}
        self._fired = {"fragmentation": False, "retries": False, "throughput": False}
        self.baseline: float | None = None

    @staticmethod
    def _torch_stats(device: Any) -> Callable[[], dict[str, Any]]:
        try:
            import torch
        except ImportError as exc:
            raise MissingDependency("torch", "torch") from exc
        if not torch.cuda.is_available():
            raise DetectorError("MemoryMonitor needs a CUDA device (torch.cuda.is_available() is False); to analyse "
                                "recorded stats pass stats_source=, or use faultlib check memory on a snapshot")
        return lambda: torch.cuda.memory_stats(device)

    def _open_nvml(self, device: Any, *, required: bool):
        index = device if isinstance(device, int) else getattr(device, "index", None)
        if index is None:
            try:
                import torch

                index = torch.cuda.current_device() if torch.cuda.is_available() else 0
            except ImportError:
                index = 0
        try:
            source = _Nvml(int(index))
        except ImportError as exc:
            if required:
                raise MissingDependency("pynvml (nvidia-ml-py)", "memory") from exc
            self.nvml_status = "nvidia-ml-py is not installed"
            return None
        except Exception as exc:  # pynvml.NVMLError_*: no driver, no device
            if required:
                raise DetectorError(f"NVML is not usable: {type(exc).__name__}: {exc}") from exc
            self.nvml_status = f"{type(exc).__name__}: {exc}"
            return None
        self.nvml_status = f"device {index}"
        return source

    def sample(self, *, step: int | None = None, items: float | None = None,
               duration_s: float | None = None) -> MemorySample:
        """Read the allocator (and NVML) now and evaluate the findings.

        Args:
            step: the caller's step number (kept in the sample and the findings' location).
            items: work done since the previous sample (rows, tokens, requests) for throughput.
            duration_s: seconds that work took; default: time since the previous sample.

        Returns:
            The :class:`MemorySample` (also appended to :attr:`samples`).
        """
        now = time.monotonic()
        elapsed = duration_s if duration_s is not None else (now - self._last_time if self._last_time else None)
        self._last_time = now
        throughput = items / elapsed if items is not None and elapsed else None
        s = sample_from_stats(self._stats(), step=step, time_s=now - self._start, throughput=throughput)
        if self._nvml is not None:
            used, total = self._nvml()
            s = MemorySample(**{**asdict(s), "nvml_used_bytes": int(used), "nvml_total_bytes": int(total)})
        previous = self.samples[-1] if self.samples else None
        self.samples.append(s)
        self._evaluate(s, previous)
        return s

    def check(self) -> list[Finding]:
        """Findings raised by the samples since the last call (empty when all is well).

        Raises:
            DetectorError: called before any :meth:`sample`.
        """
        if not self.samples:
            raise DetectorError("MemoryMonitor.check() before any sample: call sample() after each step, then check()")
        found, self._pending = self._pending, []
        return found

    def _finding(self, kind: str, severity: Severity, message: str, s: MemorySample, **evidence: Any) -> None:
        location = {"step": s.step} if s.step is not None else {}
        self._pending.append(Finding(DETECTOR, severity, message, location, evidence, kind=kind))

    def _episode(self, key: str, active: bool) -> bool:
        """True exactly when ``key`` has held for ``sustain`` samples and was not yet reported."""
        self._streak[key] = self._streak[key] + 1 if active else 0
        if not active:
            self._fired[key] = False
            return False
        if self._streak[key] >= (1 if key == "retries" else self.sustain) and not self._fired[key]:
            self._fired[key] = True
            return True
        return False

    def _evaluate(self, s: MemorySample, previous: MemorySample | None) -> None:
        fragmented = s.fragmentation >= self.fragmentation_threshold and s.reserved_bytes >= self.min_reserved_bytes
        if self._episode("fragmentation", fragmented):
            self._finding("allocator_fragmentation", Severity.WARNING,
                          f"{s.fragmentation:.0%} of the {s.reserved_bytes / MiB:.0f} MiB reserved is free but split "
                          f"beside live blocks ({s.inactive_split_bytes / MiB:.0f} MiB) for {self.sustain} samples",
                          s, fragmentation=round(s.fragmentation, 4), inactive_split_bytes=s.inactive_split_bytes,
                          reserved_bytes=s.reserved_bytes, allocated_bytes=s.allocated_bytes,
                          threshold=self.fragmentation_threshold)
        if previous is not None:
            retries = s.alloc_retries - previous.alloc_retries
            if self._episode("retries", retries > 0):
                self._finding("alloc_retries", Severity.WARNING,
                              f"the allocator flushed its cache and retried cudaMalloc {retries} time(s) since the "
                              f"last sample ({s.alloc_retries} in all) at {s.fragmentation:.0%} fragmentation",
                              s, new_retries=retries, alloc_retries=s.alloc_retries,
                              fragmentation=round(s.fragmentation, 4), reserved_bytes=s.reserved_bytes)
            if s.ooms > previous.ooms:
                self._finding("cuda_oom", Severity.ERROR,
                              f"{s.ooms - previous.ooms} CUDA out-of-memory error(s) since the last sample with "
                              f"{s.inactive_split_bytes / MiB:.0f} MiB free in split segments",
                              s, new_ooms=s.ooms - previous.ooms, ooms=s.ooms,
                              inactive_split_bytes=s.inactive_split_bytes, reserved_bytes=s.reserved_bytes)
        self._evaluate_throughput(s)

    def _evaluate_throughput(self, s: MemorySample) -> None:
        with_rate = [x for x in self.samples if x.throughput is not None]
        if s.throughput is None:
            return
        if self.baseline is None:
            usable = with_rate[self.warmup:]
            if len(usable) >= self.baseline_samples:
                self.baseline = statistics.median(x.throughput for x in usable[:self.baseline_samples])
            return
        dropped = s.throughput < (1 - self.throughput_drop) * self.baseline
        if self._episode("throughput", dropped):
            recent = with_rate[-self.sustain:]
            rate = statistics.median(x.throughput for x in recent)
            self._finding("throughput_drop", Severity.WARNING,
                          f"throughput {rate:.4g}/s is {1 - rate / self.baseline:.0%} below the baseline "
                          f"{self.baseline:.4g}/s at {s.fragmentation:.0%} fragmentation",
                          s, throughput=rate, baseline=self.baseline, drop=round(1 - rate / self.baseline, 4),
                          fragmentation=round(s.fragmentation, 4), alloc_retries=s.alloc_retries,
                          correlation=self.correlation())

    def correlation(self) -> float | None:
        """Pearson's r between fragmentation and throughput over the samples that have both (negative:
        throughput falls as fragmentation rises), or ``None`` with fewer than 3 such samples."""
        pairs = [(x.fragmentation, x.throughput) for x in self.samples[self.warmup:] if x.throughput is not None]
        return pearson([p[0] for p in pairs], [p[1] for p in pairs])

    def summary(self) -> dict[str, Any]:
        """JSON summary: samples, peak fragmentation, retries and OOMs over the run, baseline, correlation."""
        if not self.samples:
            return {"samples": 0}
        first, last = self.samples[0], self.samples[-1]
        return {"samples": len(self.samples), "peak_fragmentation": max(x.fragmentation for x in self.samples),
                "last_fragmentation": last.fragmentation,
                "peak_reserved_bytes": max(x.reserved_bytes for x in self.samples),
                "alloc_retries": last.alloc_retries - first.alloc_retries, "ooms": last.ooms - first.ooms,
                "baseline_throughput": self.baseline, "correlation": self.correlation(), "nvml": self.nvml_status}
