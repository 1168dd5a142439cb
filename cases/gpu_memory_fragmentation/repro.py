"""gpu_memory_fragmentation: a GPU model service whose request traffic fragments the CUDA caching allocator.

Needs a CUDA device (``requires.devices: [cuda]``); without one it exits 2 saying so.

The service (a 4-layer MLP trained here on scikit-learn's digits) serves a batch of
``batch_rows`` real digits rows per step, beside a cache of in-flight requests: each request holds a
GPU buffer sized by the request (its state while it is served), ``requests`` of them in flight,
``turnover`` finishing and as many arriving per step. The process may reserve ``cap_mib`` of GPU
memory (``torch.cuda.set_per_process_memory_fraction``), like one of several services sharing a GPU.

* Control: every request buffer is ``request_mib``, requests finish first-in first-out: freed blocks
  are reused exactly, nothing is split, the allocator never needs a new segment after warm-up.
* Faulted: the ``allocation_churn`` shim makes buffer sizes vary (``size_mib``) and requests finish in
  random order for a window of steps. Freed blocks are reused by smaller requests and split; free
  memory ends up in slivers beside live blocks; the activations and larger requests need new
  segments, and at the cap the allocator flushes its cache and retries ``cudaMalloc`` (or raises an
  OOM, and the service sheds that step's batch). Throughput drops.

A :class:`~faultlib.detect.MemoryMonitor` samples ``torch.cuda.memory_stats()`` (and NVML) after every
step and reports fragmentation, allocation retries, OOMs and throughput drops. On its first finding of
a kind in ``mitigate_on`` (default: an OOM or a sustained throughput drop, i.e. damage, so that the
drop is measured first) the service applies the case's mitigation: ``torch.cuda.empty_cache()`` and
``mitigation`` as allocator settings
(``expandable_segments:True``: one segment per stream that grows and unmaps free pages, so slivers no
longer strand physical memory). A later damage episode, after ``2 x sustain`` quiet steps
(``drain_on_recurrence``), stops admitting requests until the in-flight ones are done, then releases
the cache: the split heap can outlive the traffic that split it. The allocator's history is recorded; ``dumps/<phase>/`` gets
``snapshot-window.pickle`` (the last step before the mitigation, or the same step in the control)
and ``snapshot-end.pickle`` for ``faultlib check memory``, and ``memory.json`` (every sample).
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np

from faultlib import repro
from faultlib.detect.serving.memory.monitor import MemoryMonitor

MiB = 1 << 20
MITIGATING = ("cuda_oom", "throughput_drop")  # act on damage; fragmentation and retries alone are reported


class Service:
    """The model, its in-flight request buffers, and the traffic that sizes them (``traffic``)."""

    def __init__(self, model, device, traffic: dict, seed: int):
        import torch

        self.torch = torch
        self.model = model
        self.device = device
        self.traffic = traffic
        self.rng = np.random.default_rng(seed)
        self.in_flight: list = []

    def _size(self) -> int:
        low, high = self.traffic["size_mib"]
        mib = low if low == high else self.rng.uniform(low, high)
        return int(mib * MiB) // 4 * 4

    def retire(self, n: int) -> None:
        n = min(n, len(self.in_flight))
        if self.traffic.get("out_of_order"):
            for i in sorted(self.rng.choice(len(self.in_flight), size=n, replace=False), reverse=True):
                self.in_flight.pop(int(i))
        else:
            del self.in_flight[:n]

    def admit(self, n: int) -> None:
        for _ in range(n):
            buffer = self.torch.empty(self._size() // 4, dtype=self.torch.float32, device=self.device)
            buffer.fill_(1.0)
            self.in_flight.append(buffer)

    def serve(self, x):
        with self.torch.no_grad():
            return self.model(x).argmax(dim=1)


def set_allocator_settings(torch, settings: str) -> None:
    """``PYTORCH_CUDA_ALLOC_CONF`` settings at run time; new segments follow them (torch >= 2.1)."""
    setter = getattr(torch._C, "_accelerator_setAllocatorSettings", None)
    if setter is None:
        setter = torch.cuda.memory._set_allocator_settings
    setter(settings)


def train(torch, device, x, y, *, hidden: int, seed: int, steps: int = 300):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                                torch.nn.ReLU(), torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        idx = torch.randint(0, len(x), (256,), device=device)
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()
    del opt
    return model


def main() -> None:
    import torch

    if not torch.cuda.is_available():
        print("gpu_memory_fragmentation needs a CUDA device (requires.devices: [cuda]); torch.cuda.is_available() "
              "is False", file=sys.stderr)
        raise SystemExit(2)
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    with repro.context() as ctx:
        p = ctx.params
        device = torch.device("cuda", torch.cuda.current_device())  # set_per_process_memory_fraction needs an index
        total = torch.cuda.get_device_properties(device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, p["cap_mib"] * MiB / total), device)
        torch.cuda.memory._record_memory_history(enabled="all", context=None, stacks="python",
                                                 max_entries=p.get("history_entries", 200_000))
        digits = load_digits()
        x_train, x_test, y_train, y_test = train_test_split(digits.data / 16.0, digits.target, test_size=0.25,
                                                            random_state=ctx.seed, stratify=digits.target)
        xt = torch.tensor(x_train, dtype=torch.float32, device=device)
        yt = torch.tensor(y_train, dtype=torch.long, device=device)
        model = train(torch, device, xt, yt, hidden=p["hidden"], seed=ctx.seed)
        reps = -(-p["batch_rows"] // len(x_test))
        batch = torch.tensor(np.tile(x_test, (reps, 1))[:p["batch_rows"]], dtype=torch.float32, device=device)
        truth = torch.tensor(np.tile(y_test, reps)[:p["batch_rows"]], device=device)
        del xt, yt
        torch.cuda.empty_cache()

        service = Service(model, device, {"size_mib": [p["request_mib"], p["request_mib"]], "out_of_order": False},
                          ctx.seed)
        ctx.attach(service)
        monitor = MemoryMonitor(device, fragmentation_threshold=p.get("fragmentation_threshold", 0.15),
                                sustain=p.get("sustain", 3), throughput_drop=p.get("throughput_drop", 0.25),
                                baseline_samples=p.get("baseline_samples", 5), warmup=p.get("warmup", 2))
        ev = ctx.evidence
        g_frag = ev.gauge("faultlib_gpu_fragmentation_ratio", "inactive_split_bytes / reserved_bytes")
        g_reserved = ev.gauge("faultlib_gpu_reserved_bytes", "caching allocator reserved bytes", unit="By")
        g_allocated = ev.gauge("faultlib_gpu_allocated_bytes", "caching allocator allocated bytes", unit="By")
        g_split = ev.gauge("faultlib_gpu_inactive_split_bytes", "free bytes in split segments", unit="By")
        c_retries = ev.counter("faultlib_gpu_alloc_retries_total", "cache flushes and cudaMalloc retries")
        c_ooms = ev.counter("faultlib_gpu_ooms_total", "CUDA out-of-memory errors")
        c_rows = ev.counter("faultlib_gpu_served_rows_total", "rows served")
        c_shed = ev.counter("faultlib_gpu_shed_batches_total", "batches shed after an OOM")
        g_rate = ev.gauge("faultlib_gpu_throughput_rows_per_second", "rows served per second in the last step")
        g_mitigated = ev.gauge("faultlib_gpu_mitigation_active", "1 once the allocator mitigation is applied")
        g_mitigated.set(0)
        steps = p["steps"]
        mitigated_at = None
        draining_since = None  # a later damage episode: admit nothing until the in-flight requests are done
        drains = []
        last_damage = None  # the last step with a damage finding: a new episode comes after a quiet stretch
        dumps = ctx.dump_dir
        window_dumped = False
        previous = None
        correct = served = 0
        for step in range(steps):
            with ctx.step(step, total=steps, name="serve.step") as span:
                torch.cuda.synchronize()
                start = time.perf_counter()
                rows, shed = 0, False
                try:
                    service.retire(p["turnover"] if service.in_flight else 0)
                    if draining_since is not None and not service.in_flight:  # drained: every segment is free
                        torch.cuda.empty_cache()
                        drains.append([draining_since, step])
                        span.event("drained", since=draining_since)
                        draining_since = None
                    if draining_since is None:
                        service.admit(p["turnover"] if service.in_flight else p["requests"])
                    predicted = service.serve(batch)
                    correct += int((predicted == truth).sum())
                    rows = p["batch_rows"]
                except torch.cuda.OutOfMemoryError:
                    shed = True  # a real service answers 503 and goes on
                torch.cuda.synchronize()
                elapsed = time.perf_counter() - start
                served += rows
                sample = monitor.sample(step=step, items=rows, duration_s=elapsed)
                findings = monitor.check()
                for finding in findings:
                    ctx.report(finding)
                window = ctx.faults.window(step)
                damage = bool(p.get("mitigation") and {f.kind for f in findings} & set(p.get("mitigate_on", MITIGATING)))
                trigger = damage and mitigated_at is None
                recurred = damage and last_damage is not None and step - last_damage > 2 * p.get("sustain", 3)
                last_damage = step if damage else last_damage
                if recurred and not trigger and draining_since is None and p.get("drain_on_recurrence", True):
                    # Measured on an H200 (torch 2.11): expandable segments switched on at run time stop the
                    # damage under the varying traffic, but the heap it left stays split: when the traffic turns
                    # uniform again (24 MiB, first-in first-out) every request finds only smaller holes and, at the
                    # cap, OOMs each step. A later episode (after
                    # 2 x sustain quiet steps) drains the in-flight requests and releases the cache.
                    draining_since = step
                    span.event("drain", reason=sorted({f.kind for f in findings}))
                if not window_dumped and (trigger or step == p.get("window_snapshot_step", steps - 1)):
                    torch.cuda.memory._dump_snapshot(str(dumps / "snapshot-window.pickle"))  # before the mitigation
                    window_dumped = True
                if trigger:
                    torch.cuda.empty_cache()
                    set_allocator_settings(torch, p["mitigation"])
                    mitigated_at = step
                    g_mitigated.set(1)
                    span.event("mitigation", setting=p["mitigation"])
                retries = sample.alloc_retries - (previous.alloc_retries if previous else sample.alloc_retries)
                ooms = sample.ooms - (previous.ooms if previous else sample.ooms)
                previous = sample
                c_retries.add(retries)
                c_ooms.add(ooms)
                c_rows.add(rows)
                c_shed.add(1 if shed else 0)
                g_frag.set(sample.fragmentation)
                g_reserved.set(sample.reserved_bytes)
                g_allocated.set(sample.allocated_bytes)
                g_split.set(sample.inactive_split_bytes)
                g_rate.set(rows / elapsed if elapsed else 0.0)
                span.set(throughput=rows / elapsed if elapsed else 0.0, fragmentation=sample.fragmentation,
                         reserved_bytes=sample.reserved_bytes, inactive_split_bytes=sample.inactive_split_bytes,
                         alloc_retries=sample.alloc_retries, new_retries=retries, ooms=sample.ooms, shed=shed,
                         mitigated=mitigated_at is not None, in_flight=len(service.in_flight), fault_window=window,
                         nvml_used_bytes=sample.nvml_used_bytes)
        torch.cuda.memory._dump_snapshot(str(dumps / "snapshot-end.pickle"))
        torch.cuda.memory._record_memory_history(enabled=None)
        (dumps / "memory.json").write_text(json.dumps({"samples": [s.to_json() for s in monitor.samples],
                                                       "summary": monitor.summary(), "mitigated_at": mitigated_at},
                                                      indent=1))
        rates = [s.throughput for s in monitor.samples if s.throughput]
        summary = {"steps": steps, "served_rows": served, "accuracy": correct / served if served else 0.0,
                   "median_throughput": statistics.median(rates) if rates else 0.0,
                   "mitigated_at": -1 if mitigated_at is None else mitigated_at, "drains": len(drains),
                   "last_drained_at": drains[-1][1] if drains else -1,
                   **{k: v for k, v in monitor.summary().items() if isinstance(v, (int, float)) and v is not None}}
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in summary.items()))
        ctx.summary(**summary)


if __name__ == "__main__":
    main()
