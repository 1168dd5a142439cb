"""GPU memory fragmentation, offline: a ``torch.cuda.memory._snapshot()`` pickle, safely read and replayed.

The snapshot (``torch.cuda.memory._dump_snapshot(path)`` writes it; ``torch/cuda/memory.py``
documents its shape) is ``{"segments": [Segment], "device_traces": [[TraceEntry]]}``: each segment
is a ``cudaMalloc``'d range (``address``, ``total_size``, ``segment_type`` small/large, ``device``,
``is_expandable``) with its ``blocks`` (``size``, ``address``, ``state`` ``active_allocated`` /
``active_awaiting_free`` / ``inactive``); each trace entry, when history was recorded
(``torch.cuda.memory._record_memory_history()``), is an allocator action: ``alloc``,
``free_requested``, ``free_completed``, ``segment_alloc``, ``segment_free``, ``segment_map``,
``segment_unmap``, ``oom`` or ``snapshot``, with ``addr``, ``size`` and ``time_us`` (newer torch).

Reading (:func:`load_snapshot`): the bytes come through :func:`faultlib.readers.read_bytes`
(bounded, no symlinks) and are unpickled by :class:`SafeUnpickler`, whose ``find_class`` refuses
every global: only the builtin containers and scalars a snapshot holds (dict, list, tuple, str,
int, float, bool, None, bytes) can be built, so no code runs. A refused global, a truncated or
corrupt pickle, trailing bytes, or a document without the snapshot's shape is an
:class:`~faultlib.errors.InputError` naming the file and the field (exit 2).

Analysis (:func:`analyse_snapshot`): the final state comes from the segments; the trace is replayed
backwards from it (undoing each action), so a trace whose ring buffer wrapped still gives the state
at every point it covers. At up to ``points`` evenly spaced points it records reserved, allocated
and split-free bytes (free bytes inside segments that still hold a live block: the snapshot
equivalent of ``inactive_split_bytes``) and ``fragmentation = split_free / reserved``, and a heatmap
row per address bucket (address offset in the segments laid end to end, by address; the value is
the allocated share of the reserved bytes in the bucket; ``NaN`` where nothing is reserved).
Expandable segments are tracked per mapped range. Findings: :data:`KINDS`.
"""

from __future__ import annotations

import bisect
import io
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.readers.files import Limits, MiB, read_bytes

DETECTOR = "memory"
SNAPSHOT_LIMITS = Limits(max_bytes=1024 * MiB, max_depth=64, max_nodes=20_000_000)
SMALL_SEGMENT = 2 * MiB  # kSmallBuffer: the small pool's segment size (requests <= 1 MiB)
LIVE = ("active_allocated", "active_awaiting_free")
ADDRESSED = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map",
             "segment_unmap"}
KINDS = {
    "fragmented_memory": "a share of reserved memory at or above the threshold is free but split beside live blocks "
                         "(at the snapshot, or at its peak during the trace)",
    "unusable_free_memory": "a request needed a new segment (cudaMalloc) or failed although more than its size was "
                            "free in split segments of its pool: every free piece was smaller",
    "cuda_oom": "the trace holds an out-of-memory error",
    "cache_flush": "the allocator returned cached segments (cudaFree: a failed cudaMalloc retried after freeing the "
                   "cache, or empty_cache()) and reserved new ones afterwards",
    "incomplete_trace": "trace actions refer to blocks or segments the replay does not know (the ring buffer "
                        "wrapped or history started late): the earliest part of the timeline is approximate",
}


class _Refused(pickle.UnpicklingError):
    pass


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that builds builtin containers and scalars only: every global and persistent id is refused."""

    def find_class(self, module: str, name: str):  # noqa: D102 - refuses everything
        raise _Refused(f"{module}.{name}")

    def persistent_load(self, pid):  # noqa: D102
        raise _Refused(f"persistent id {pid!r}")


@dataclass(frozen=True)
class Snapshot:
    """A validated memory snapshot.

    Attributes:
        path: the file.
        size_bytes: its size.
        segments: ``{device, address, size, pool, expandable, blocks: [(address, size, state)]}`` per segment.
        traces: ``{device: [(action, addr, size, time_us)]}`` (``addr`` and ``time_us`` may be ``None``).
    """

    path: str
    size_bytes: int
    segments: list[dict[str, Any]]
    traces: dict[int, list[tuple[str, int | None, int, int | None]]]

    @property
    def devices(self) -> list[int]:
        return sorted({s["device"] for s in self.segments} | {d for d, t in self.traces.items() if t})


def unpickle(data: bytes, path: str) -> Any:
    """Unpickle ``data`` with :class:`SafeUnpickler`, consuming all of it.

    Raises:
        InputError: a refused global (named), a truncated or corrupt pickle, or bytes after its end.
    """
    stream = io.BytesIO(data)
    try:
        value = SafeUnpickler(stream).load()
    except _Refused as exc:
        raise InputError(f"unsafe pickle: it needs the global {exc} (a memory snapshot holds only dicts, lists, "
                         "strings and numbers); refused without running it", path=path) from None
    except (EOFError, pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError, AttributeError,
            OverflowError, MemoryError, RecursionError) as exc:
        what = "truncated" if isinstance(exc, EOFError) or "truncated" in str(exc) else "corrupt"
        raise InputError(f"not a readable pickle ({what}: {type(exc).__name__}: {exc}); write it again with "
                         "torch.cuda.memory._dump_snapshot()", path=path) from None
    if stream.tell() != len(data):
        raise InputError(f"has {len(data) - stream.tell()} bytes after the end of the pickle: not a memory snapshot "
                         "file as torch.cuda.memory._dump_snapshot() writes it", path=path)
    return value


#: addresses, sizes and times in a snapshot are 64-bit on every CUDA device: a larger integer is not one
INT_LIMIT = 1 << 64


def _int(value: Any, where: str, path: str, *, minimum: int | None = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum) \
            or abs(value) >= INT_LIMIT:
        shown = (f"an integer of {value.bit_length()} bits" if isinstance(value, int) and not isinstance(value, bool)
                 and abs(value) >= INT_LIMIT else repr(value)[:60])
        raise InputError(f"must be an integer{' >= ' + str(minimum) if minimum is not None else ''} below 2**64, "
                         f"found {shown}", path=path, field=where)
    return value


def validate_snapshot(data: Any, path: str, *, size_bytes: int = 0,
                      max_items: int = SNAPSHOT_LIMITS.max_nodes) -> Snapshot:
    """Check ``data`` has the shape of a memory snapshot and normalise it.

    Raises:
        InputError: a missing or mistyped field (named as ``segments[3].blocks[2].size``), or more than
            ``max_items`` blocks and trace entries together (a pickle can share one list many times).
    """
    if not isinstance(data, dict) or not isinstance(data.get("segments"), list):
        found = type(data).__name__ if not isinstance(data, dict) else f"a dict with keys {sorted(map(str, data))[:8]}"
        raise InputError(f"not a memory snapshot: expected a dict with 'segments' (torch.cuda.memory._snapshot()), "
                         f"found {found}", path=path, field="segments")
    budget = max_items
    segments = []
    for i, seg in enumerate(data["segments"]):
        where = f"segments[{i}]"
        if not isinstance(seg, dict):
            raise InputError(f"must be a dict, found {type(seg).__name__}", path=path, field=where)
        address = _int(seg.get("address"), f"{where}.address", path)
        size = _int(seg.get("total_size"), f"{where}.total_size", path)
        blocks = seg.get("blocks")
        if not isinstance(blocks, list):
            raise InputError("must be a list of blocks", path=path, field=f"{where}.blocks")
        budget -= len(blocks) + 1
        if budget < 0:
            raise InputError(f"holds more than {max_items} blocks and trace entries", path=path, field=where)
        out, cursor = [], address
        for j, block in enumerate(blocks):
            bwhere = f"{where}.blocks[{j}]"
            if not isinstance(block, dict):
                raise InputError(f"must be a dict, found {type(block).__name__}", path=path, field=bwhere)
            bsize = _int(block.get("size"), f"{bwhere}.size", path)
            state = block.get("state")
            if not isinstance(state, str):
                raise InputError(f"must be a string ({', '.join(LIVE)} or inactive)", path=path,
                                 field=f"{bwhere}.state")
            baddr = _int(block["address"], f"{bwhere}.address", path) if "address" in block else cursor
            if not address <= baddr <= baddr + bsize <= address + size:
                raise InputError(f"block [{baddr:#x}, +{bsize}) lies outside its segment [{address:#x}, +{size})",
                                 path=path, field=bwhere)
            cursor = baddr + bsize
            out.append((baddr, bsize, state))
        segment_type = seg.get("segment_type")
        pool = segment_type if segment_type in ("small", "large") else ("small" if size <= SMALL_SEGMENT else "large")
        device = seg.get("device", 0)
        segments.append({"device": _int(device, f"{where}.device", path), "address": address, "size": size,
                         "pool": pool, "expandable": bool(seg.get("is_expandable", False)), "blocks": out})
    traces_raw = data.get("device_traces", [])
    if not isinstance(traces_raw, list):
        raise InputError("must be a list (one list of trace entries per device)", path=path, field="device_traces")
    traces: dict[int, list[tuple[str, int | None, int, int | None]]] = {}
    for d, entries in enumerate(traces_raw):
        if not isinstance(entries, list):
            raise InputError("must be a list of trace entries", path=path, field=f"device_traces[{d}]")
        budget -= len(entries)
        if budget < 0:
            raise InputError(f"holds more than {max_items} blocks and trace entries", path=path,
                             field=f"device_traces[{d}]")
        events = []
        for k, entry in enumerate(entries):
            where = f"device_traces[{d}][{k}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("action"), str):
                raise InputError("must be a dict with a string 'action'", path=path, field=where)
            action = entry["action"]
            size = _int(entry.get("size", 0), f"{where}.size", path)
            addr = entry.get("addr")
            if action in ADDRESSED:
                addr = _int(addr, f"{where}.addr", path)
            elif isinstance(addr, bool) or not isinstance(addr, int):
                addr = None
            time_us = entry.get("time_us")
            events.append((action, addr, size, time_us if isinstance(time_us, int) and not isinstance(time_us, bool)
                           else None))
        traces[d] = events
    return Snapshot(path, size_bytes, segments, traces)


def load_snapshot(path: str | Path, *, limits: Limits = SNAPSHOT_LIMITS) -> Snapshot:
    """Read, safely unpickle and validate a memory snapshot file.

    Raises:
        InputError: see :func:`faultlib.readers.read_bytes`, :func:`unpickle` and :func:`validate_snapshot`.
    """
    path = str(path)
    data = read_bytes(path, limits=limits)
    return validate_snapshot(unpickle(data, path), path, size_bytes=len(data), max_items=limits.max_nodes)


# -- replay ---------------------------------------------------------------------------------------

class _Seg:
    __slots__ = ("address", "size", "pool", "expandable", "blocks", "allocated")

    def __init__(self, address: int, size: int, pool: str, expandable: bool):
        self.address, self.size, self.pool, self.expandable = address, size, pool, expandable
        self.blocks: dict[int, int] = {}
        self.allocated = 0

    def add(self, addr: int, size: int) -> None:
        if addr not in self.blocks:
            self.blocks[addr] = size
            self.allocated += size

    def remove(self, addr: int) -> bool:
        size = self.blocks.pop(addr, None)
        if size is None:
            return False
        self.allocated -= size
        return True

    def pieces(self) -> list[int]:
        """Sizes of the free gaps between live blocks."""
        out, cursor = [], self.address
        for addr in sorted(self.blocks):
            if addr > cursor:
                out.append(addr - cursor)
            cursor = max(cursor, addr + self.blocks[addr])
        if self.address + self.size > cursor:
            out.append(self.address + self.size - cursor)
        return out


class _State:
    """Segments by start address, with lookup of the segment holding an address."""

    def __init__(self):
        self.segs: dict[int, _Seg] = {}
        self.starts: list[int] = []

    def add(self, seg: _Seg) -> None:
        if seg.address not in self.segs:
            self.segs[seg.address] = seg
            bisect.insort(self.starts, seg.address)

    def drop(self, address: int) -> _Seg | None:
        seg = self.segs.pop(address, None)
        if seg is not None:
            self.starts.pop(bisect.bisect_left(self.starts, address))
        return seg

    def find(self, addr: int) -> _Seg | None:
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0:
            return None
        seg = self.segs[self.starts[i]]
        return seg if addr < seg.address + seg.size else None

    def totals(self) -> tuple[int, int, int]:
        reserved = allocated = split = 0
        for seg in self.segs.values():
            reserved += seg.size
            allocated += seg.allocated
            if seg.allocated:
                split += seg.size - seg.allocated
        return reserved, allocated, split

    def pool_free(self, pool: str) -> tuple[int, int]:
        """(free bytes in split segments of ``pool``, largest such piece)."""
        free = largest = 0
        for seg in self.segs.values():
            if seg.pool == pool and seg.allocated:
                pieces = seg.pieces()
                free += sum(pieces)
                largest = max([largest, *pieces])
        return free, largest


def _unmap(state: _State, addr: int, size: int) -> bool:
    """Remove ``[addr, addr + size)`` from the segment holding it (splitting it); False if none does."""
    seg = state.find(addr)
    if seg is None:
        return False
    state.drop(seg.address)
    end = addr + size
    for start, stop in ((seg.address, addr), (end, seg.address + seg.size)):
        if stop > start:
            part = _Seg(start, stop - start, seg.pool, seg.expandable)
            for b, s in seg.blocks.items():
                if start <= b < stop:
                    part.add(b, s)
            state.add(part)
    return True
