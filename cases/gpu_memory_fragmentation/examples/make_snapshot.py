"""Write an example CUDA memory snapshot without a GPU, for `faultlib check memory`.

    python cases/gpu_memory_fragmentation/examples/make_snapshot.py fragmented.pickle
    python cases/gpu_memory_fragmentation/examples/make_snapshot.py healthy.pickle --healthy

The file has the shape ``torch.cuda.memory._dump_snapshot()`` writes (``segments`` with their
``blocks``, ``device_traces`` with ``alloc``/``free_requested``/``free_completed``/``segment_alloc``/
``segment_free``/``oom`` entries and ``time_us``), produced by :class:`CachingAllocator`, a small
model of the policy of PyTorch's CUDA caching allocator (``c10/cuda/CUDACachingAllocator.cpp``):
sizes rounded up to 512 bytes; requests up to 1 MiB served from 2 MiB small-pool segments, larger
ones from 20 MiB segments below 10 MiB and from segments rounded up to 2 MiB above; best fit (the
smallest free block that fits, then the lowest address); a block split when the rest is at least
512 bytes (small pool) or more than 1 MiB (large pool); freed blocks merged with free neighbours;
at the memory limit, every wholly free cached segment is returned (cudaFree) and the request
retried once, then an out-of-memory error.

The workload is the case's serving loop on an 800 MiB budget: a cache of in-flight request buffers
(64 requests; 8 finish and 8 arrive per step) beside per-step activations. ``--healthy``: every
request buffer has the same size and activations are fixed, so freed blocks are reused exactly.
Default (fragmented): request buffers of 2-18 MiB finishing in random order and activations of a
varying batch size, the allocation pattern that leaves free memory split in pieces.

Only the standard library is used; the output is deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import bisect
import pickle
import random
import sys

KiB, MiB = 1 << 10, 1 << 20
SMALL_SIZE, SMALL_BUFFER, LARGE_BUFFER, MIN_LARGE_ALLOC = MiB, 2 * MiB, 20 * MiB, 10 * MiB
ROUND_LARGE = 2 * MiB


class OutOfMemory(Exception):
    pass


class CachingAllocator:
    """Blocks, segments and a trace, as the CUDA caching allocator keeps them (see the module docstring).

    Args:
        capacity: bytes the allocator may reserve in all (``set_per_process_memory_fraction``).
        base: address of the first segment.
    """

    def __init__(self, capacity: int, base: int = 0x7F3A00000000):
        self.capacity = capacity
        self.next_address = base
        self.segments: dict[int, dict] = {}  # address -> {size, pool, blocks: {addr: [size, allocated, requested]}}
        self.trace: list[dict] = []
        self.clock_us = 1_700_000_000_000_000
        self.retries = self.ooms = 0

    def _event(self, action: str, addr: int | None, size: int) -> None:
        self.clock_us += 37
        entry = {"action": action, "size": size, "stream": 0, "frames": [], "time_us": self.clock_us}
        if addr is not None:
            entry["addr"] = addr
        if action == "oom":
            entry["device_free"] = max(self.capacity - self.reserved(), 0)
        self.trace.append(entry)

    def reserved(self) -> int:
        return sum(s["size"] for s in self.segments.values())

    @staticmethod
    def round_size(n: int) -> int:
        return max(512, (n + 511) // 512 * 512)

    @staticmethod
    def segment_size(size: int) -> int:
        if size <= SMALL_SIZE:
            return SMALL_BUFFER
        if size < MIN_LARGE_ALLOC:
            return LARGE_BUFFER
        return (size + ROUND_LARGE - 1) // ROUND_LARGE * ROUND_LARGE

    def _best_fit(self, size: int, pool: str):
        best = None
        for seg_addr, seg in self.segments.items():
            if seg["pool"] != pool:
                continue
            for addr, (bsize, allocated, _req) in seg["blocks"].items():
                if not allocated and bsize >= size and (best is None or (bsize, addr) < (best[2], best[1])):
                    best = (seg_addr, addr, bsize)
        return best

    def _release_cached(self) -> None:
        for seg_addr in sorted(self.segments):
            seg = self.segments[seg_addr]
            if not any(b[1] for b in seg["blocks"].values()):
                self._event("segment_free", seg_addr, seg["size"])
                del self.segments[seg_addr]

    def malloc(self, n: int) -> int:
        size = self.round_size(n)
        pool = "small" if size <= SMALL_SIZE else "large"
        found = self._best_fit(size, pool)
        if found is None:
            seg_size = self.segment_size(size)
            if self.reserved() + seg_size > self.capacity:
                self.retries += 1
                self._release_cached()
                found = self._best_fit(size, pool)
                if found is None and self.reserved() + seg_size > self.capacity:
                    self.ooms += 1
                    self._event("oom", None, size)
                    raise OutOfMemory(f"cannot allocate {size} bytes")
            if found is None:
                addr = self.next_address
                self.next_address += seg_size + 64 * MiB  # segments are not adjacent in the address space
                self.segments[addr] = {"size": seg_size, "pool": pool, "blocks": {addr: [seg_size, False, 0]}}
                self._event("segment_alloc", addr, seg_size)
                found = (addr, addr, seg_size)
        seg_addr, addr, bsize = found
        blocks = self.segments[seg_addr]["blocks"]
        rest = bsize - size
        if (pool == "small" and rest >= 512) or (pool == "large" and rest > SMALL_SIZE):
            blocks[addr] = [size, True, n]
            blocks[addr + size] = [rest, False, 0]
        else:
            blocks[addr] = [bsize, True, n]
        self._event("alloc", addr, blocks[addr][0])
        return addr

    def free(self, addr: int) -> None:
        seg_addr = max(a for a in self.segments if a <= addr)
        blocks = self.segments[seg_addr]["blocks"]
        size = blocks[addr][0]
        self._event("free_requested", addr, size)
        blocks[addr][1] = False
        self._event("free_completed", addr, size)
        starts = sorted(blocks)
        i = bisect.bisect_left(starts, addr)
        if i + 1 < len(starts) and not blocks[starts[i + 1]][1]:  # merge with the next free block
            blocks[addr][0] += blocks.pop(starts[i + 1])[0]
        if i > 0 and not blocks[starts[i - 1]][1]:  # and with the previous one
            blocks[starts[i - 1]][0] += blocks.pop(addr)[0]

    def snapshot(self) -> dict:
        """The dict ``torch.cuda.memory._snapshot()`` returns (one device)."""
        segments = []
        for seg_addr in sorted(self.segments):
            seg = self.segments[seg_addr]
            blocks = [{"address": a, "size": b[0], "requested_size": b[2] if b[1] else 0,
                       "state": "active_allocated" if b[1] else "inactive", "frames": []}
                      for a, b in sorted(seg["blocks"].items())]
            allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
            segments.append({"device": 0, "address": seg_addr, "total_size": seg["size"], "stream": 0,
                             "segment_type": seg["pool"], "segment_pool_id": (0, 0), "allocated_size": allocated,
                             "active_size": allocated, "requested_size": sum(b["requested_size"] for b in blocks),
                             "is_expandable": False, "blocks": blocks})
        return {"segments": segments, "device_traces": [list(self.trace)],
                "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1}}


def serve(healthy: bool, *, seed: int = 0, steps: int = 120, capacity: int = 800 * MiB) -> CachingAllocator:
    """The case's serving loop on the simulated allocator (see the module docstring)."""
    rng = random.Random(seed)
    alloc = CachingAllocator(capacity)
    weights = [alloc.malloc(4 * MiB) for _ in range(6)] + [alloc.malloc(16 * KiB) for _ in range(6)]
    in_flight: list[int] = []
    for step in range(steps):
        try:
            for _ in range(8 if in_flight else 64):  # new requests' buffers
                size = 10 * MiB if healthy else rng.randint(2, 18) * MiB + rng.randint(0, 63) * 8 * KiB
                in_flight.append(alloc.malloc(size))
            batch = 256 if healthy else rng.randint(192, 320)
            acts = [alloc.malloc(batch * 2048 * 4 * (2 if k % 2 else 1)) for k in range(4)]  # fp32 activations
            acts.append(alloc.malloc(batch * 10 * 4))
            for a in acts:
                alloc.free(a)
        except OutOfMemory:
            pass  # the service sheds that step's load
        finishing = in_flight[:8] if healthy else rng.sample(in_flight, min(8, len(in_flight)))
        for addr in finishing:
            in_flight.remove(addr)
            alloc.free(addr)
    del weights
    return alloc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the .pickle file to write")
    parser.add_argument("--healthy", action="store_true", help="fixed request and batch sizes (no fragmentation)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=120)
    args = parser.parse_args(argv)
    alloc = serve(args.healthy, seed=args.seed, steps=args.steps)
    with open(args.out, "wb") as fh:
        pickle.dump(alloc.snapshot(), fh)
    print(f"wrote {args.out}: {len(alloc.segments)} segments, {alloc.reserved() / MiB:.0f} MiB reserved, "
          f"{len(alloc.trace)} trace entries, {alloc.retries} retries, {alloc.ooms} OOMs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
