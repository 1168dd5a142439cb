"""Fragmentation over time from a memory snapshot (:func:`analyse_snapshot`) and its heatmap (:func:`render_png`).

See :mod:`faultlib.detect.serving.memory.snapshot` for the file, the replay and the definitions. Thresholds:
``fragmentation`` at or above 0.15 (the same default as :class:`~faultlib.detect.serving.memory.monitor.MemoryMonitor`;
our choice, not a published constant: the healthy example snapshot of the gpu_memory_fragmentation
case stays under 0.05 at every point, the fragmented one sits at 0.17 while OOMs happen with over
100 MiB free in pieces; tune it per workload) with at least 64 MiB reserved (a small cache fragments
harmlessly). The peak over time is the highest median of 5 consecutive timeline points.

Cost: one pass over the trace, plus one pass over the segments at each
of ``points`` timeline points and at each ``segment_alloc``/``oom`` entry.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.detect.serving.memory.snapshot import DETECTOR, LIVE, SMALL_SEGMENT, Snapshot, _Seg, _State, _unmap
from faultlib.errors import InputError, require
from faultlib.findings import Finding, Severity
from faultlib.outputs import OutputFile, output_file

MiB = 1 << 20
SEGMENT_ADD = ("segment_alloc", "segment_map")
SEGMENT_DROP = ("segment_free", "segment_unmap")
EXAMPLES = 5
PEAK_WINDOW = 5
FLUSH_CHURN_BURSTS = 2
"""Separate bursts of segment frees, each followed by new segments, that make a flush churn (a warning)."""


@dataclass
class SnapshotReport:
    """What :func:`analyse_snapshot` found on one device.

    Attributes:
        snapshot: the analysed :class:`~faultlib.detect.serving.memory.snapshot.Snapshot`.
        device: the device analysed.
        state: at the snapshot: ``reserved_bytes``, ``allocated_bytes``, ``split_free_bytes``,
            ``releasable_bytes`` (wholly free segments), ``fragmentation``, ``largest_free_piece_bytes``,
            ``free_pieces``, ``segments``, ``split_segments`` (holding live and free memory) and ``by_pool``
            (the same per pool).
        timeline: ``[{index, time_us, reserved_bytes, allocated_bytes, split_free_bytes, fragmentation}]``;
            ``index`` is the number of trace entries applied (0: before the first).
        peak: ``{fragmentation, index, time_us}`` over the timeline points with enough reserved memory.
        events: count per trace action, and ``unknown_references``.
        unusable: ``{count, examples: [{index, time_us, pool, request_bytes, free_split_bytes,
            largest_free_piece_bytes}]}``.
        ooms: ``[{index, time_us, request_bytes, free_split_bytes, largest_free_piece_bytes}]``.
        flush: ``{segment_frees, bursts, freed_bytes, segment_allocs_after}``.
        findings: of the kinds in :data:`~faultlib.detect.serving.memory.snapshot.KINDS`.
        heatmap: allocated share per (address bucket, timeline point), ``NaN`` where nothing is
            reserved, shape ``(rows, len(timeline))``; ``None`` unless ``heatmap=True``.
        address_bytes: bytes the heatmap's address axis spans (every segment ever seen, end to end).
    """

    snapshot: Snapshot
    device: int
    state: dict[str, Any]
    timeline: list[dict[str, Any]]
    peak: dict[str, Any]
    events: dict[str, int]
    unusable: dict[str, Any]
    ooms: list[dict[str, Any]]
    flush: dict[str, Any]
    thresholds: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)
    heatmap: Any = None
    address_bytes: int = 0

    def fields(self) -> dict[str, Any]:
        """The JSON fields of ``faultlib check memory`` (``png`` is added by the check)."""
        traces = self.snapshot.traces.get(self.device, [])
        return {"snapshot": {"path": self.snapshot.path, "bytes": self.snapshot.size_bytes,
                             "devices": self.snapshot.devices, "trace_entries": len(traces),
                             "segments": sum(s["device"] == self.device for s in self.snapshot.segments)},
                "device": self.device, "state": self.state, "timeline": self.timeline, "peak": self.peak,
                "events": self.events, "unusable_free_memory": self.unusable, "ooms": self.ooms,
                "cache_flush": self.flush, "thresholds": self.thresholds}


def _state_of(state: _State) -> dict[str, Any]:
    def summary(segs: list[_Seg]) -> dict[str, Any]:
        reserved = sum(s.size for s in segs)
        allocated = sum(s.allocated for s in segs)
        split = [s for s in segs if 0 < s.allocated < s.size]
        pieces = [p for s in split for p in s.pieces()]
        free_split = sum(pieces)
        return {"reserved_bytes": reserved, "allocated_bytes": allocated, "split_free_bytes": free_split,
                "releasable_bytes": sum(s.size for s in segs if not s.allocated),
                "fragmentation": round(free_split / reserved, 6) if reserved else 0.0,
                "largest_free_piece_bytes": max(pieces, default=0), "free_pieces": len(pieces),
                "segments": len(segs), "split_segments": len(split)}

    segs = list(state.segs.values())
    out = summary(segs)
    out["by_pool"] = {pool: summary([s for s in segs if s.pool == pool]) for pool in ("small", "large")}
    return out


class _Raster:
    """Address axis: every reserved range ever seen, by address, laid end to end and cut in ``rows`` buckets."""

    def __init__(self, ranges: list[tuple[int, int]], rows: int):
        np = require("numpy", "data")
        self.np = np
        merged: list[list[int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = np.array([m[0] for m in merged], dtype=np.float64)
        lengths = np.array([m[1] - m[0] for m in merged], dtype=np.float64)
        self.offsets = np.concatenate([[0.0], np.cumsum(lengths)])
        self.total = int(self.offsets[-1])
        self.edges = np.linspace(0.0, max(self.total, 1), rows + 1)

    def _compact(self, addrs):
        i = self.np.clip(self.np.searchsorted(self.starts, addrs, side="right") - 1, 0, None)
        return self.offsets[i] + (addrs - self.starts[i])

    def _coverage(self, intervals: list[tuple[int, int]]):
        np = self.np
        if not intervals:
            return np.zeros(len(self.edges) - 1)
        arr = np.array(intervals, dtype=np.float64)
        starts = self._compact(arr[:, 0])
        ends = starts + arr[:, 1]
        order = np.argsort(starts)
        starts, ends = starts[order], ends[order]
        cum = np.concatenate([[0.0], np.cumsum(ends - starts)])
        k = np.searchsorted(starts, self.edges, side="right")
        below = cum[k] - np.where(k > 0, np.clip(ends[np.maximum(k - 1, 0)] - self.edges, 0, None), 0.0)
        return np.diff(below)

    def column(self, state: _State):
        reserved = self._coverage([(s.address, s.size) for s in state.segs.values()])
        allocated = self._coverage([(a, n) for s in state.segs.values() for a, n in s.blocks.items()])
        with self.np.errstate(invalid="ignore", divide="ignore"):
            return self.np.where(reserved > 0, self.np.minimum(allocated / reserved, 1.0), self.np.nan)


def _initial_state(snapshot: Snapshot, device: int) -> _State:
    state = _State()
    for seg in snapshot.segments:
        if seg["device"] != device:
            continue
        s = _Seg(seg["address"], seg["size"], seg["pool"], seg["expandable"])
        for addr, size, status in seg["blocks"]:
            if status in LIVE:
                s.add(addr, size)
        state.add(s)
    return state


def _request_after(events, i: int, start: int, size: int) -> int:
    """Size of the allocation that made segment ``[start, start + size)`` at entry ``i`` (else its size)."""
    for action, addr, n, _t in events[i + 1:i + 9]:
        if action == "alloc" and addr is not None and start <= addr < start + size:
            return n
    return size


def analyse_snapshot(snapshot: Snapshot, *, device: int | None = None, threshold: float = 0.15,
                     min_reserved_bytes: int = 64 * MiB, points: int = 240, rows: int = 256,
                     heatmap: bool = False) -> SnapshotReport:
    """Replay one device's trace and report fragmentation over time (see the module docstrings).

    Args:
        snapshot: from :func:`~faultlib.detect.serving.memory.snapshot.load_snapshot`.
        device: the device to analyse; default the one with the most segments and trace entries.
        threshold: ``split_free / reserved`` at or above which memory counts as fragmented (default 0.15).
        min_reserved_bytes: below this much reserved memory nothing is reported as fragmented (bytes).
        points: most timeline points (and heatmap columns), evenly spaced over the trace.
        rows: heatmap address buckets.
        heatmap: also build :attr:`SnapshotReport.heatmap` (needs numpy).

    Returns:
        A :class:`SnapshotReport`.

    Raises:
        InputError: ``device`` is not in the snapshot, or ``threshold``/``points``/``rows`` out of range.
    """
    if not 0 < threshold <= 1 or points < 2 or rows < 1:
        raise InputError("threshold must be in (0, 1], points >= 2 and rows >= 1", field="--threshold")
    devices = snapshot.devices
    if device is None:
        device = max(devices, key=lambda d: sum(s["device"] == d for s in snapshot.segments)
                     + len(snapshot.traces.get(d, []))) if devices else 0
    elif device not in devices:
        raise InputError(f"the snapshot has no segments or trace entries for device {device} (devices: {devices})",
                         path=snapshot.path, field="--device")
    events = snapshot.traces.get(device, [])
    n = len(events)
    state = _initial_state(snapshot, device)
    final = _state_of(state)
    picks = sorted({round(i * n / (points - 1)) for i in range(points)}) if n else [0]
    pick_set = set(picks)
    raster = None
    if heatmap:
        ranges = [(s.address, s.address + s.size) for s in state.segs.values()]
        ranges += [(a, a + sz) for act, a, sz, _t in events if act in SEGMENT_ADD + SEGMENT_DROP and a is not None]
        raster = _Raster(ranges, rows)
    recorded: dict[int, tuple[tuple[int, int, int], Any]] = {}

    def record(k: int) -> None:
        recorded[k] = (state.totals(), raster.column(state) if raster is not None else None)

    record(n)
    unknown, unusable, ooms = 0, [], []
    for i in range(n - 1, -1, -1):
        action, addr, size, t = events[i]
        if action == "alloc":
            seg = state.find(addr)
            unknown += not (seg is not None and seg.remove(addr))
        elif action == "free_completed":
            seg = state.find(addr)
            if seg is None:
                unknown += 1
            else:
                seg.add(addr, size)
        elif action in SEGMENT_ADD:
            if state.segs.get(addr) is not None and state.segs[addr].size == size:
                state.drop(addr)
            else:
                unknown += not _unmap(state, addr, size)
        elif action in SEGMENT_DROP:
            state.add(_Seg(addr, size, "small" if size <= SMALL_SEGMENT else "large", action == "segment_unmap"))
        if action in ("segment_alloc", "oom"):  # the state now is the one the request met
            request = _request_after(events, i, addr, size) if action == "segment_alloc" else size
            pool = "small" if request <= MiB else "large"
            free = sum(s.size - s.allocated for s in state.segs.values() if s.pool == pool and s.allocated)
            if action == "oom" or (request and free >= request):
                free, largest = state.pool_free(pool)
                item = {"index": i, "time_us": t, "pool": pool, "request_bytes": request, "free_split_bytes": free,
                        "largest_free_piece_bytes": largest}
                (ooms if action == "oom" else unusable).append(item)
        if i in pick_set:
            record(i)

    timeline = []
    for k in picks:
        (reserved, allocated, split), _column = recorded[k]
        t = events[k - 1][3] if k > 0 else (events[0][3] if events else None)
        timeline.append({"index": k, "time_us": t, "reserved_bytes": reserved, "allocated_bytes": allocated,
                         "split_free_bytes": split, "fragmentation": round(split / reserved, 6) if reserved else 0.0})
    peak = _peak(timeline, min_reserved_bytes)
    counts: dict[str, int] = {}
    for action, *_ in events:
        counts[action] = counts.get(action, 0) + 1
    counts["unknown_references"] = unknown
    unusable.reverse()
    ooms.reverse()
    report = SnapshotReport(snapshot, device, final, timeline, peak, counts,
                            {"count": len(unusable), "examples": unusable[:EXAMPLES]}, ooms, _flush(events),
                            {"fragmentation": threshold, "min_reserved_bytes": min_reserved_bytes})
    if raster is not None:
        np = raster.np
        report.heatmap = np.stack([recorded[k][1] for k in picks], axis=1)
        report.address_bytes = raster.total
    report.findings = _findings(report, threshold, min_reserved_bytes)
    return report


def _peak(timeline: list[dict[str, Any]], min_reserved: int) -> dict[str, Any]:
    """The highest median fragmentation over ``PEAK_WINDOW`` consecutive timeline points (one
    transient point cannot make a peak), among points with at least ``min_reserved`` bytes reserved."""
    best = {"fragmentation": 0.0, "index": None, "time_us": None, "window_points": PEAK_WINDOW}
    for i in range(len(timeline)):
        window = timeline[max(0, i - PEAK_WINDOW + 1):i + 1]
        if len(window) < min(PEAK_WINDOW, len(timeline)) or window[-1]["reserved_bytes"] < min_reserved:
            continue
        value = sorted(p["fragmentation"] for p in window)[len(window) // 2]
        if value > best["fragmentation"]:
            best.update(fragmentation=value, index=window[-1]["index"], time_us=window[-1]["time_us"])
    return best


def _flush(events) -> dict[str, Any]:
    frees = bursts = allocs_after = freed = 0
    in_burst = seen_free = False
    for action, _addr, size, _t in events:
        if action in SEGMENT_DROP:
            frees += 1
            freed += size
            bursts += not in_burst
            in_burst = seen_free = True
        elif action in SEGMENT_ADD:
            in_burst = False
            allocs_after += seen_free
    return {"segment_frees": frees, "bursts": bursts, "freed_bytes": freed, "segment_allocs_after": allocs_after}


def _mib(n: int) -> str:
    return f"{n / MiB:.1f} MiB"


def _findings(r: SnapshotReport, threshold: float, min_reserved: int) -> list[Finding]:
    out: list[Finding] = []
    path, d = r.snapshot.path, r.device
    s = r.state
    frag_evidence = {"fragmentation": s["fragmentation"], "split_free_bytes": s["split_free_bytes"],
                     "reserved_bytes": s["reserved_bytes"], "largest_free_piece_bytes": s["largest_free_piece_bytes"],
                     "free_pieces": s["free_pieces"], "peak": r.peak, "threshold": threshold}
    if s["fragmentation"] >= threshold and s["reserved_bytes"] >= min_reserved:
        out.append(Finding(DETECTOR, Severity.WARNING,
                           f"{s['fragmentation']:.0%} of the {_mib(s['reserved_bytes'])} reserved is free but split "
                           f"beside live blocks: {_mib(s['split_free_bytes'])} in {s['free_pieces']} pieces, the "
                           f"largest {_mib(s['largest_free_piece_bytes'])}",
                           {"file": path, "key": "segments"}, frag_evidence, kind="fragmented_memory"))
    elif r.peak["fragmentation"] >= threshold:
        out.append(Finding(DETECTOR, Severity.WARNING,
                           f"fragmentation peaked at {r.peak['fragmentation']:.0%} of reserved memory at trace entry "
                           f"{r.peak['index']} ({s['fragmentation']:.0%} at the snapshot)",
                           {"file": path, "key": f"device_traces[{d}]", "index": r.peak["index"]}, frag_evidence,
                           kind="fragmented_memory"))
    if r.unusable["count"]:
        worst = max(r.unusable["examples"], key=lambda e: e["free_split_bytes"] / max(e["request_bytes"], 1))
        out.append(Finding(DETECTOR, Severity.ERROR,
                           f"{r.unusable['count']} request(s) needed a new segment although more than their size was "
                           f"free in split segments, e.g. {_mib(worst['request_bytes'])} with "
                           f"{_mib(worst['free_split_bytes'])} free in pieces of at most "
                           f"{_mib(worst['largest_free_piece_bytes'])}",
                           {"file": path, "key": f"device_traces[{d}][{worst['index']}]", "index": worst["index"]},
                           dict(r.unusable), kind="unusable_free_memory"))
    if r.ooms:
        first = r.ooms[0]
        out.append(Finding(DETECTOR, Severity.CRITICAL,
                           f"{len(r.ooms)} out-of-memory error(s); the first asked for {_mib(first['request_bytes'])} "
                           f"with {_mib(first['free_split_bytes'])} free in split segments (largest piece "
                           f"{_mib(first['largest_free_piece_bytes'])})",
                           {"file": path, "key": f"device_traces[{d}][{first['index']}]", "index": first["index"]},
                           {"count": len(r.ooms), "examples": r.ooms[:EXAMPLES]}, kind="cuda_oom"))
    if r.flush["segment_frees"] and r.flush["segment_allocs_after"]:
        # churn is a flush that recurs: one burst is one empty_cache() (after loading a model, say) or one retried
        # cudaMalloc, and reserving afterwards is the warm-up that follows it (seen on an H200: a service's own
        # empty_cache() after training, then its request buffers' 66 segments)
        f = r.flush
        churn = f["bursts"] >= FLUSH_CHURN_BURSTS
        out.append(Finding(DETECTOR, Severity.WARNING if churn else Severity.INFO,
                           f"the allocator returned {f['segment_frees']} cached segment(s) ({_mib(f['freed_bytes'])}) "
                           f"in {f['bursts']} burst(s) and reserved {f['segment_allocs_after']} new one(s) afterwards: "
                           + ("cudaFree/cudaMalloc churn (failed cudaMallocs retried after flushing the cache, or "
                              "empty_cache() in a loop)" if churn else
                              "one flush (an empty_cache() call or one retried cudaMalloc); churn if it recurs"),
                           {"file": path, "key": f"device_traces[{d}]"}, dict(f), kind="cache_flush"))
    if r.events.get("unknown_references"):
        out.append(Finding(DETECTOR, Severity.INFO,
                           f"{r.events['unknown_references']} trace entries refer to blocks or segments the replay "
                           "does not know (the history ring buffer wrapped or started late): early timeline points "
                           "are approximate", {"file": path, "key": f"device_traces[{d}]"},
                           {"unknown_references": r.events["unknown_references"]}, kind="incomplete_trace"))
    return out


def check_png_path(path: str | Path) -> Path:
    """Where ``--png`` may write: a ``.png`` name, an output target :func:`faultlib.outputs.output_file` accepts
    (a file in a writable directory, or a FIFO or device written in place; never a link or a directory).

    Raises:
        InputError: otherwise (before any analysis runs).
    """
    path = Path(path)
    if path.suffix.lower() != ".png" and not path.is_char_device() and not path.is_fifo():
        raise InputError("the heatmap is a PNG: give a file name ending in .png", path=str(path), field="--png")
    output_file(path, "--png")
    return path


def render_png(report: SnapshotReport, path: str | Path | OutputFile, *, dpi: int = 110) -> Path:
    """Write the heatmap (time x address offset, allocated share of reserved bytes) over the fragmentation
    timeline as a PNG, through matplotlib's Agg canvas (no display, no global backend change).

    The PNG is written through :class:`faultlib.outputs.OutputFile`: a file is replaced atomically (a reader
    never sees half a PNG), a FIFO or device is written in place.

    Raises:
        DetectorError: the report has no heatmap (``analyse_snapshot(..., heatmap=True)`` first).
        MissingDependency: matplotlib is not installed (``pip install 'faultlib-ml[memory]'``).
    """
    from faultlib.errors import DetectorError

    if report.heatmap is None:
        raise DetectorError("the report has no heatmap: call analyse_snapshot(..., heatmap=True) before render_png")
    require("matplotlib", "memory")
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    target = path if isinstance(path, OutputFile) else output_file(check_png_path(path), "--png", probe=False)
    times = [p["time_us"] for p in report.timeline]
    use_time = all(t is not None for t in times) and len(set(times)) > 1
    x = np.array([(t - times[0]) / 1e6 for t in times] if use_time else [p["index"] for p in report.timeline], float)
    if len(x) == 1:
        x = np.array([x[0], x[0] + 1.0])
        grid = np.repeat(report.heatmap, 2, axis=1)
    else:
        grid = report.heatmap
    fig = Figure(figsize=(11, 7.5), dpi=dpi)
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1.2]})
    cmap = __import__("matplotlib").colormaps["viridis"].with_extremes(bad="#eeeeee")
    extent = (x[0], x[-1], 0, max(report.address_bytes, 1) / MiB)
    image = top.imshow(np.ma.masked_invalid(grid), aspect="auto", origin="lower", extent=extent, cmap=cmap,
                       vmin=0, vmax=1, interpolation="nearest")
    fig.colorbar(image, ax=top, label="allocated share of reserved bytes", pad=0.01)
    top.set_ylabel("address offset (MiB, segments end to end)")
    s = report.state
    top.set_title(f"{Path(report.snapshot.path).name} device {report.device}: {s['fragmentation']:.0%} of "
                  f"{s['reserved_bytes'] / MiB:.0f} MiB reserved is free but split (peak "
                  f"{report.peak['fragmentation']:.0%}); grey = not reserved", fontsize=10)
    frag = [p["fragmentation"] for p in report.timeline]
    xs = x if len(report.timeline) > 1 else x[:1]
    bottom.plot(xs, frag, color="tab:red", label="fragmentation (split free / reserved)")
    bottom.axhline(report.thresholds["fragmentation"], color="tab:red", linestyle=":", linewidth=1)
    bottom.set_ylim(0, 1)
    bottom.set_ylabel("fragmentation")
    twin = bottom.twinx()
    twin.plot(xs, [p["reserved_bytes"] / MiB for p in report.timeline], color="tab:gray", label="reserved MiB")
    twin.plot(xs, [p["allocated_bytes"] / MiB for p in report.timeline], color="tab:blue", label="allocated MiB")
    twin.set_ylabel("MiB")
    bottom.set_xlabel("seconds since the first trace entry" if use_time else "trace entries applied")
    handles = bottom.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    bottom.legend(handles, [h.get_label() for h in handles], loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3,
                  fontsize=8, frameon=False)
    image = io.BytesIO()
    fig.savefig(image, format="png")
    target.write_bytes(image.getvalue())
    return target.path
