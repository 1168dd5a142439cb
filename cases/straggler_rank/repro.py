"""straggler_rank: 2-rank DDP training on scikit-learn's digits (gloo, CPU) where rank 1's data path slows down.

Every step draws one global batch from the same seeded permutation on every rank; rank r takes its shard
(``shares[r]`` samples, equal at first). Each rank loads its shard (the fault point ``data.load``), runs
forward/backward through DDP (its built-in gradient all-reduce, recorded per backward by the flight recorder)
and steps the optimizer. The loss is the shard's summed cross-entropy times world / global batch, so DDP's
mean over ranks is the global batch's mean whatever the shard sizes: rebalancing never changes the gradient.

The faulted phase's ``rank_slowdown`` shim adds a per-sample wait to rank 1's data path from step
``inject.start_step``. The StragglerMonitor times data / compute / collective wait per step, exchanges the
window medians every ``every`` steps and names the slow rank and phase (the same verdict on both ranks at the
same step); rank 0 reports it. Each step span also carries ``waited_ms``, how long the rank waited for a CPU in
that step (the monitor's run-queue wait), so the assertion suite can tell a rank the machine starved from a
slow one. Mitigation (``apply_mitigation: true``): the ranks split the global batch so that each
rank's predicted busy time is equal (``faultlib.remedies.rebalance_shards``: the named phase costs per sample,
the other per step, from the exchanged window medians), so the slow rank loads fewer samples and nobody waits
as long.
"""

import time

import torch
import torch.distributed as dist
from torch import nn

from faultlib import repro
from faultlib.detect import FlightRecorder, StragglerDetector, StragglerMonitor
from faultlib.remedies import rebalance_shards
from faultlib.workloads import digits_split


def rebalanced(table: list[list[float]], shares: list[int], total: int, phase: str) -> list[int]:
    """New shares from the exchanged window (rows: data, compute, collective, step ms): the phase the verdict
    names costs per sample (its time over the rank's share), the other is a cost per step."""
    slow, other = (0, 1) if phase == "data" else (1, 0)
    return rebalance_shards([row[slow] / shares[r] for r, row in enumerate(table)],
                            [row[other] for row in table], total)


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.set_num_threads(1)
        dist.init_process_group("gloo")
        rank, world = ctx.rank, ctx.world_size
        torch.manual_seed(ctx.seed)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        steps, total = int(p["steps"]), int(p["global_batch"])
        recorder = FlightRecorder(ctx.dump_dir / "collectives", watchdog_s=60).install()
        model = nn.Sequential(nn.Linear(64, int(p["hidden"])), nn.ReLU(), nn.Linear(int(p["hidden"]), 10))
        ddp = nn.parallel.DistributedDataParallel(model)
        ctx.attach(ddp)  # the faulted phase's shim subscribes to data.load on the slow rank
        optimizer = torch.optim.SGD(ddp.parameters(), lr=float(p["lr"]), momentum=0.9)
        detector = StragglerDetector(persist=int(p["persist"]), min_excess_ms=float(p["min_excess_ms"]))
        monitor = StragglerMonitor(every=int(p["every"]), flight_recorder=recorder, evidence=ctx.evidence,
                                   detector=detector)
        samples_total = ctx.evidence.counter("faultlib_train_samples_total", "training samples this rank loaded")
        share_gauge = ctx.evidence.gauge("faultlib_shard_share", "samples of the global batch this rank loads")
        rebalances = ctx.evidence.counter("faultlib_shard_rebalances_total", "shard rebalances after a verdict")
        rebalances.add(0)
        order = torch.Generator().manual_seed(ctx.seed)  # the same global batches on every rank
        perm, cursor = torch.randperm(len(x_train), generator=order), 0
        shares = [total // world + (1 if r < total % world else 0) for r in range(world)]
        started = time.perf_counter()
        for step in range(steps):
            if cursor + total > len(perm):
                perm, cursor = torch.randperm(len(x_train), generator=order), 0
            batch, cursor = perm[cursor:cursor + total], cursor + total
            with ctx.step(step, total=steps) as span:
                t0 = time.perf_counter()
                monitor.begin_step(step)
                with monitor.phase("data"):
                    lo = sum(shares[:rank])
                    mine = batch[lo:lo + shares[rank]]
                    ctx.fault_point("data.load", step=step, samples=len(mine))
                    xb, yb = x_train[mine], y_train[mine]
                with monitor.phase("compute"):
                    loss = nn.functional.cross_entropy(ddp(xb), yb, reduction="sum") * world / total
                    loss.backward()
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                verdict = monitor.end_step()
                own = monitor.history[-1]
                samples_total.add(len(mine))
                share_gauge.set(shares[rank])
                span.set(rank=rank, loss=float(loss) * total / world / len(mine), samples=len(mine),
                         data_ms=own["data"], compute_ms=own["compute"], collective_ms=own["collective"],
                         step_ms=(time.perf_counter() - t0) * 1000, waited_ms=own["waited_ms"])
                if verdict is not None:
                    if rank == 0:
                        ctx.report(verdict.to_finding())
                    span.event("straggler", rank=verdict.rank, phase=verdict.phase)
                    if p["apply_mitigation"]:
                        shares = rebalanced(monitor.last_table, shares, total, verdict.phase)
                        rebalances.add(1)
                        span.event("rebalance", shares=str(shares))
                        ctx.log.info("rebalanced shards after straggler rank %d (%s): %s", verdict.rank,
                                     verdict.phase, shares)
        elapsed = time.perf_counter() - started
        with torch.no_grad():
            accuracy = float((model(x_test).argmax(1) == y_test).float().mean())
        ctx.summary(accuracy=accuracy, seconds=elapsed, shares=str(shares))
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
