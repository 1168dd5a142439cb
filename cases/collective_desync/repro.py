"""collective_desync: two DDP ranks train a digits classifier on gloo; from step K one rank all-reduces
the class-0 metric only when its batch holds a 0, skips it on the first batch without one, and the world
hangs: rank 0 waits in the metric all-reduce, the other rank in the next step's gradient all-reduce.

Every rank runs the collective flight recorder with a short watchdog (``watchdog_s``, far below gloo's
30-minute default): when a collective stays pending that long, the rank dumps its ring and waits (bounded)
until every rank has dumped; rank 0 names the rank, sequence number and call site (the analysis of
``faultlib check collectives``) as a finding; each rank writes its evidence out and ends its process with 0
(:class:`Abort`): the world exits within a watchdog poll, nobody sits until the phase's timeout.

The metric is reduced over its own gloo group (a CPU group for metrics, as many codebases keep beside the
gradient group), so a skipped metric all-reduce never pairs with a gradient all-reduce of another size
(gloo aborts the process on that: a crash, not the hang this case is about).

The mitigation is the control's code: the reducer is collective-uniform (every rank calls the all-reduce;
a rank without class-0 samples contributes zeros), and the global class-0 loss is the same as one process
computing it over both ranks' batches.
"""

import json
import os
import threading
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F

from faultlib import repro
from faultlib.detect.distributed import FlightRecorder, analyse_collectives, load_collective_dumps
from faultlib.workloads import digits_split

WORLD_GROUP, METRIC_GROUP = "world", "metrics"


def build_model(hidden: int) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))


class Trainer:
    """What the repro attaches: the DDP model and the metric reducer the ``collective_skip`` shim swaps."""

    def __init__(self, model: torch.nn.Module, metric_group):
        self.model = model
        self.metric_group = metric_group

    def reduce_metric(self, values: torch.Tensor, present: bool) -> torch.Tensor:
        """Collective-uniform: every rank all-reduces ``values`` (class-0 loss sum, count); a rank whose batch
        holds no class 0 contributes zeros. ``present`` is what a data-dependent branch would test."""
        dist.all_reduce(values, group=self.metric_group)  # the class-0 metric all-reduce
        return values


def rank_batches(x: torch.Tensor, y: torch.Tensor, *, rank: int, world: int, batch: int, seed: int):
    """This rank's shard of each epoch's shuffled order (as DistributedSampler), in batches, for ever."""
    epoch = 0
    while True:
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed + epoch))[rank::world]
        for start in range(0, len(order) - batch + 1, batch):
            idx = order[start:start + batch]
            yield x[idx], y[idx]
        epoch += 1


class Abort:
    """The watchdog's action on every rank: wait (bounded) until every rank dumped its ring; on rank 0, name
    the first divergence (``faultlib check collectives``' analysis) as a finding; write the evidence out and
    end the process with 0. A rank's main thread is stuck inside the backend (C++), where no Python exception
    reaches it, and gloo's process-group abort does not wake a pending wait, so the watchdog thread exits
    the process itself; a peer's main thread that wakes first (its connection closed) waits for its own
    watchdog (:meth:`hold`)."""

    def __init__(self, ctx, dump_dir, world: int, grace_s: float):
        self.ctx, self.dump_dir, self.world, self.grace_s = ctx, dump_dir, world, grace_s
        self.started = threading.Event()

    def dumped(self) -> list[int]:
        return [r for r in range(self.world) if (self.dump_dir / f"rank{r}.json").exists()]

    def __call__(self, entry: dict) -> None:
        self.started.set()
        waited_s = (time.monotonic_ns() - entry["start_ns"]) / 1e9
        ctx = self.ctx
        ctx.log.error("flight recorder watchdog: %s seq %s pending %.2f s at %s:%s; ending the world", entry["op"],
                      entry["seq"], waited_s, entry["call_site"]["file"], entry["call_site"]["line"])
        deadline = time.monotonic() + self.grace_s
        while len(self.dumped()) < self.world and time.monotonic() < deadline:
            time.sleep(0.05)
        if ctx.rank == 0:
            report = analyse_collectives(load_collective_dumps(self.dump_dir))
            first = report.first_divergence or {}
            cause = [f for f in report.findings if f.evidence.get("group") == first.get("group")
                     and f.evidence.get("seq") == first.get("seq")]
            for finding in cause + [f for f in report.findings if f not in cause]:  # the first divergence first
                ctx.report(finding)
        record = {"rank": ctx.rank, "op": entry["op"], "seq": entry["seq"], "group": entry["group"]["name"],
                  "waited_s": round(waited_s, 3), "dumps": self.dumped()}
        (self.dump_dir / f"abort-rank{ctx.rank}.json").write_text(json.dumps(record))
        ctx.evidence.close()  # spans finished so far, metrics, logs, findings: written before the exit
        os._exit(0)  # the world ends here: every rank's watchdog does the same within a poll

    def hold(self, wait_s: float) -> bool:
        """In the main thread, after a collective failed: True (and never returns) when the watchdog is
        ending this rank; False when it is not (a real error, to raise)."""
        if not self.started.wait(wait_s):
            return False
        threading.Event().wait()  # the watchdog thread exits the process
        return True


def main() -> None:
    torch.set_num_threads(1)
    with repro.context() as ctx:
        p = ctx.params
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)  # before the world: no rank waits on a load
        dist.init_process_group("gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
        metric_group = dist.new_group(backend="gloo")
        names = {"0": WORLD_GROUP, str(metric_group.group_name): METRIC_GROUP}
        abort = Abort(ctx, ctx.dump_dir, world, grace_s=p["watchdog_s"] + 3.0)
        recorder = FlightRecorder(ctx.dump_dir, watchdog_s=p["watchdog_s"], poll_s=0.1, on_timeout=abort).install()

        torch.manual_seed(ctx.seed)
        model = torch.nn.parallel.DistributedDataParallel(build_model(p["hidden"]))
        trainer = Trainer(model, metric_group)
        ctx.attach(trainer)
        optimizer = torch.optim.SGD(model.parameters(), lr=p["lr"])

        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps completed")
        seq_gauge = ctx.evidence.gauge("faultlib_collective_seq", "collectives issued per process group (flight recorder)")
        class0 = ctx.evidence.gauge("faultlib_class0_loss", "mean loss on class 0 over every rank's batch")
        present_gauge = ctx.evidence.gauge("faultlib_class0_present", "1 when this rank's batch holds class 0")
        batches = rank_batches(x_train, y_train, rank=rank, world=world, batch=p["batch_size"], seed=ctx.seed)
        done = 0
        try:
            for step in range(p["steps"]):
                xb, yb = next(batches)
                with ctx.step(step, total=p["steps"]) as span:
                    losses = F.cross_entropy(model(xb), yb, reduction="none")
                    optimizer.zero_grad()
                    losses.mean().backward()  # DDP's gradient all-reduce
                    optimizer.step()
                    mask = yb == 0
                    present = bool(mask.any())
                    values = torch.stack([losses.detach()[mask].sum(), mask.sum().to(torch.float32)])
                    local_sum = float(values[0])
                    reduced = trainer.reduce_metric(values, present)
                    mean0 = float(reduced[0] / reduced[1].clamp(min=1))
                    class0.set(mean0)
                    present_gauge.set(float(present))
                    span.set(rank=rank, loss=float(losses.detach().mean()), class0_present=present, class0_count=float(reduced[1]),
                             class0_local=float(mask.sum()), class0_local_sum=local_sum, class0_sum=float(reduced[0]),
                             class0_loss=mean0)
                    steps_total.add(1)
                    for group, seq in recorder.sequence_numbers().items():
                        seq_gauge.set(seq, group=names.get(group, group))
                    done = step + 1
        except RuntimeError:
            if not abort.hold(p["watchdog_s"] + 5.0):  # a peer that left on its own: a real error
                raise
        with torch.no_grad():
            accuracy = float((model(x_test).argmax(1) == y_test).float().mean())
        ctx.summary(steps=done, aborted=False, accuracy=accuracy)
        recorder.dump("exit")
        recorder.uninstall()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
