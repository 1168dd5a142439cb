"""dataloader_worker_crash: DDP training on scikit-learn's digits, 2 ranks (gloo, CPU), each rank reading its
shard through a DataLoader with 2 persistent worker processes (DistributedSampler, 3 epochs).

The faulted phase's ``worker_kill`` shims poison two samples of rank 1's shard: loading one makes the worker
raise (a truncated image), loading the other SIGKILLs the worker (what the OOM killer does). Before training,
each rank loads each poisoned index once through a plain DataLoader, as the job would without faultlib, and
records what PyTorch itself says (span ``dataloader.unmitigated``). Then it trains with
:class:`faultlib.detect.WorkerWatch`: each fault is reported (rank, worker, dataset index, batch, sample,
traceback or signal), the index is quarantined, the raised batch is rebuilt without it and the killed
worker's iterator restarted; the epoch goes on with the same number of steps on both ranks (DDP stays in step).
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from faultlib import repro
from faultlib.detect import WorkerFault, WorkerWatch
from faultlib.inject.data import through
from faultlib.workloads import digits_split


class DigitImages(Dataset):
    """Digits decoded one sample at a time (8x8 image, per-image standardisation), as an image dataset does."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor):
        self.x, self.y = x, y

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, index: int):
        image = self.x[index].reshape(1, 8, 8)
        image = (image - image.mean()) / (image.std() + 1e-6)
        return image.reshape(64), self.y[index]

    def describe(self, index: int) -> dict:
        """The sample's identity for a report, without decoding it."""
        return {"digits_row": int(index), "label": int(self.y[index])}


def raise_oom_score(_worker_id: int) -> None:
    """Workers volunteer first to the OOM killer (oom_score_adj 1000): under memory pressure a worker dies,
    which WorkerWatch recovers from, instead of the rank (the Kubernetes twin relies on it)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def unmitigated(ctx, dataset, index: int) -> None:
    """Load ``index`` the way the job would without faultlib; record PyTorch's own message (first line)."""
    loader = DataLoader(torch.utils.data.Subset(dataset, [index]), batch_size=1, num_workers=1)
    it = iter(loader)
    message = None
    try:
        for _ in it:
            pass
    except Exception as exc:  # what the training loop would have died with
        message = (type(exc).__name__, str(exc).strip().splitlines()[0])
    finally:
        it._shutdown_workers()  # not left for a forked worker's garbage collector
        del it
    if message is not None:
        with ctx.evidence.span("dataloader.unmitigated", index=index, exception=message[0], message=message[1],
                               names_index=str(index) in message[1]):
            pass


def main() -> None:
    with repro.context() as ctx:
        torch.set_num_threads(1)
        dist.init_process_group("gloo")
        p, rank = ctx.params, ctx.rank
        torch.manual_seed(ctx.seed)
        x_tr, y_tr, x_te, y_te = digits_split(ctx.seed)
        hidden = int(p["hidden"])
        model = DistributedDataParallel(nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10)))
        ctx.attach(model)
        dataset = through(ctx, "data.dataset", DigitImages(x_tr, y_tr), source="digits")
        if ctx.phase == "faulted":
            for shim in ctx.faults:
                unmitigated(ctx, dataset, int(shim.params["index"]))

        watch = WorkerWatch(dataset, describe=dataset.describe, skip_budget=int(p["skip_budget"]))
        sampler = DistributedSampler(watch.dataset, shuffle=True, seed=ctx.seed, drop_last=True)
        loader = DataLoader(watch.dataset, batch_size=int(p["batch_size"]), sampler=sampler, drop_last=True,
                            num_workers=int(p["workers"]), persistent_workers=True, worker_init_fn=raise_oom_score)
        optimizer = torch.optim.SGD(model.parameters(), lr=float(p["lr"]), momentum=0.9)
        steps_total = int(p["epochs"]) * len(loader)
        ev = ctx.evidence
        faults = ev.counter("faultlib_dataloader_worker_faults_total", "DataLoader worker faults (raised, killed)")
        samples = ev.counter("faultlib_dataloader_samples_total", "samples trained on")
        quarantined = ev.gauge("faultlib_dataloader_quarantined_samples", "dataset indices quarantined")
        loss_gauge = ev.gauge("faultlib_train_loss", "training loss of the last step")
        epoch_ms = ev.histogram("faultlib_dataloader_epoch_duration_ms", "wall time of one epoch in ms",
                                buckets=(250, 500, 1000, 2000, 4000, 8000, 16000))
        for kind in ("worker_raised", "worker_killed"):
            faults.add(0, kind=kind)  # a series at 0 from the start: a silent rank reads 0, not "no data"
        step, seen = 0, 0
        started = time.perf_counter()
        try:
            for epoch in range(int(p["epochs"])):
                sampler.set_epoch(epoch)
                t0, before = time.perf_counter(), len(watch.reports)
                for x, y in watch.iterate(loader, epoch=epoch):
                    with ctx.step(step, total=steps_total) as span:
                        optimizer.zero_grad(set_to_none=True)
                        loss = nn.functional.cross_entropy(model(x), y)
                        loss.backward()
                        optimizer.step()
                        span.set(loss=float(loss.detach()), epoch=epoch, batch=len(y))
                    loss_gauge.set(float(loss.detach()))
                    samples.add(len(y))
                    seen += len(y)
                    step += 1
                for report in watch.reports[before:]:
                    faults.add(1, kind=report.kind)
                    ctx.report(report.finding())
                    with ev.span("dataloader.worker_fault", kind=report.kind, worker=report.worker_id,
                                 index=report.index, signal=report.signal, exception=report.exception,
                                 epoch=report.epoch):
                        pass
                    ctx.log.warning("%s", report.render())
                quarantined.set(len(watch.quarantined))
                epoch_ms.record((time.perf_counter() - t0) * 1000.0)
        except WorkerFault as fault:  # the budget ran out: the report is the last word of this rank
            ctx.report(fault.report.finding())
            raise
        model.eval()
        with torch.no_grad():
            accuracy = float((model(x_te).argmax(1) == y_te).float().mean())
        ctx.summary(**{f"rank{rank}_steps": step, f"rank{rank}_samples": seen, f"rank{rank}_accuracy": accuracy,
                       f"rank{rank}_train_s": round(time.perf_counter() - started, 3),
                       f"rank{rank}_quarantined": len(watch.quarantined)})
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
