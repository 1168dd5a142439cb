"""distributed_nan_rank: DDP on scikit-learn's digits, 2 ranks on gloo. In the faulted run rank 1's shard holds
NaN samples from step K (shim rank_data_poison); DDP's gradient all-reduce carries the value to rank 0 in the
same step. Each rank watches its collectives (CollectiveNonFiniteWatch): rank 1 saw a non-finite loss before
any collective brought one (the producer; the locator names the module, op and line), rank 0 received it
through the bucket all-reduce (op, seq). Mitigation: one all-reduce of a finite flag after backward, so every
rank skips the same optimizer step; the rank whose batch held non-finite samples drops them from its shard.
"""

from collections import OrderedDict

import torch
import torch.distributed as dist
from torch import nn

from faultlib import repro
from faultlib.detect import CollectiveNonFiniteWatch, Finding, first_consumer, locate
from faultlib.inject.data import through
from faultlib.workloads import digits_split


def build_model(hidden: int) -> nn.Module:
    return nn.Sequential(OrderedDict(fc1=nn.Linear(64, hidden), act=nn.ReLU(), head=nn.Linear(hidden, 10)))


def all_finite(tensors) -> bool:
    return all(bool(torch.isfinite(t).all()) for t in tensors if t is not None)


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.set_num_threads(1)
        torch.manual_seed(ctx.seed)  # the same initial weights on every rank (DDP broadcasts rank 0's anyway)
        dist.init_process_group("gloo")
        rank, world = ctx.rank, ctx.world_size
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        mine = torch.arange(rank, len(x_train), world)  # DistributedSampler's strided shard
        x_shard, y_shard = x_train[mine], y_train[mine]
        live = torch.ones(len(x_shard), dtype=torch.bool)  # samples this rank still draws from
        watch = CollectiveNonFiniteWatch(step=lambda: ctx.step_index).install()  # before DDP: it hooks the buckets
        model = nn.parallel.DistributedDataParallel(build_model(int(p.get("hidden", 32))))
        ctx.attach(model)
        steps, batch_size = int(p.get("steps", 60)), int(p.get("batch_size", 32))
        optimizer = torch.optim.SGD(model.parameters(), lr=float(p.get("lr", 0.3)), momentum=0.9)
        draws = torch.Generator().manual_seed(1000 * ctx.seed + rank)
        ev = ctx.evidence
        steps_total = ev.counter("faultlib_train_steps_total", "training steps run")
        local_total = ev.counter("faultlib_nonfinite_local_steps_total", "steps whose loss or gradients were non-finite on this rank")
        received_total = ev.counter("faultlib_nonfinite_received_total", "collectives that brought this rank a non-finite value from finite inputs")
        skipped_total = ev.counter("faultlib_skipped_steps_total", "optimizer steps skipped by every rank (finite-flag all-reduce)")
        dropped_total = ev.counter("faultlib_dropped_samples_total", "non-finite samples dropped from this rank's shard")
        loss_gauge = ev.gauge("faultlib_train_loss", "training loss of the last step")
        skipped, dropped, located = 0, 0, None
        for counter in (local_total, received_total, skipped_total, dropped_total):
            counter.add(0)  # every series exists from the start, in the control too
        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                shard = through(ctx, "data.shard", x_shard, rank=rank, step=step)
                pool = live.nonzero().squeeze(1)
                pick = pool[torch.randint(len(pool), (batch_size,), generator=draws)]
                xb, yb = shard[pick], y_shard[pick]
                optimizer.zero_grad(set_to_none=True)
                loss = nn.functional.cross_entropy(model(xb), yb)
                if not bool(torch.isfinite(loss)):
                    if located is None:  # born in an op (the locator), or already in the data: its first consumer
                        event = locate(lambda: nn.functional.cross_entropy(model.module(xb), yb), step=step)
                        if event is not None:
                            ctx.report(event.finding())
                            located = {"module": event.module, "op": event.op, "file": event.file,
                                       "line": event.line, "source": "op"}
                        else:
                            located = {**(first_consumer(model.module, lambda: model.module(xb)) or {}),
                                       "source": "input"}
                    found = located
                    watch.saw(step, "the loss", **found)
                received_before = watch.counts["received"]
                loss.backward()  # DDP all-reduces the gradient buckets here
                grads_finite = all_finite(p_.grad for p_ in model.parameters())
                if not grads_finite:
                    watch.saw(step, "the gradients after backward")
                local_ok = bool(torch.isfinite(loss)) and grads_finite
                flag = torch.tensor([1.0 if local_ok else 0.0])
                dist.all_reduce(flag, op=dist.ReduceOp.MIN)  # every rank agrees to skip, or none does
                skip = flag.item() < 1.0
                bad = ~torch.isfinite(xb).all(dim=1)
                if skip:
                    optimizer.zero_grad(set_to_none=True)
                    gone = pick[bad].unique()
                    dropped_now = int(live[gone].sum())
                    live[gone] = False
                    dropped += dropped_now
                    skipped += 1
                    dropped_total.add(dropped_now)
                else:
                    optimizer.step()
                steps_total.add(1)
                local_total.add(int(not local_ok))
                received_total.add(watch.counts["received"] - received_before)
                skipped_total.add(int(skip))
                if not skip:
                    loss_gauge.set(loss.item())
                span.set(rank=rank, loss=float(loss.item()), local_nonfinite=not local_ok, skipped=skip,
                         bad_samples=int(bad.sum()))
        world_view = watch.world_summary()  # every rank's summary, merged: who made it, who received it
        counts = torch.tensor([float(dropped)])
        dist.all_reduce(counts)
        model.eval()
        with torch.no_grad():
            accuracy = (model.module(x_test).argmax(1) == y_test).float().mean().item()
        weights_finite = all_finite(model.module.state_dict().values())
        watch.uninstall()
        first = world_view["first_rank"]
        if rank == 0 and first is not None:
            producer = next(r for r in world_view["ranks"] if r["rank"] == first)
            seen = producer["first_seen"]
            receivers = [r for r in world_view["ranks"] if r["role"] == "received"]
            how = "; ".join(f"rank {r['rank']} received it through {r['received']['op']} seq {r['received']['seq']} "
                            f"at step {r['received']['step']}" for r in receivers)
            ctx.report(Finding(
                "distributed.nan_rank", "error",
                f"rank {first} produced the first non-finite value at step {seen['step']} ({seen['where']}; "
                + ("already in its batch, first consumed by" if seen.get("source") == "input" else "made by")
                + f" op {seen.get('op')} in module {seen.get('module')}); {how or 'no other rank received it'}",
                location={k: v for k, v in {"step": seen["step"], "module": seen.get("module"), "op": seen.get("op"),
                                            "file": seen.get("file"), "line": seen.get("line")}.items() if v is not None},
                evidence={"first_rank": first, "source": seen.get("source"), "ranks": [{k: r[k] for k in ("rank", "role", "received", "sent")}
                                                         for r in world_view["ranks"]]}, kind="nan_rank"))
        if rank == 0:
            ctx.summary(accuracy=accuracy, weights_finite=weights_finite, steps=steps, skipped_steps=skipped,
                        dropped_samples=int(counts.item()), first_rank=-1 if first is None else first)
        print(f"rank={rank} accuracy={accuracy:.4f} skipped={skipped} dropped={dropped}", flush=True)
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
