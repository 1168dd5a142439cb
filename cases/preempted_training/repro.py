"""preempted_training: an MLP on scikit-learn's digits that checkpoints atomically and resumes.

On start the trainer quarantines temporary files an interrupted checkpoint write left behind,
loads the newest published checkpoint (``torch.load(..., weights_only=True)``) and restores the
model, the optimizer (momentum buffers), the cosine LR schedule, the step, and every RNG: the
global torch generator (dropout masks), the batch-order generator and Python's ``random``. The
resumed run therefore replays exactly the steps it lost and ends with the same weights as an
uninterrupted run. Every ``checkpoint_every`` steps it publishes a checkpoint atomically
(atomic_checkpoint.py) and keeps the newest ``keep_last``.

The faulted phase's ``process_kill`` shims SIGKILL the process group mid-step and mid-checkpoint
write; ``repro.restarts`` makes the runner start the phase again (``ctx.attempt`` 2, 3).
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import torch
from torch import nn

import atomic_checkpoint as checkpoint
from faultlib import repro
from faultlib.findings import Finding
from faultlib.workloads import digits_split


def build_model(hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))


class Trainer:
    """Model, optimizer, schedule and RNGs: everything a checkpoint must hold to resume exactly."""

    def __init__(self, ctx, params: dict):
        self.ctx = ctx
        self.steps = int(params.get("steps", 300))
        self.batch_size = int(params.get("batch_size", 64))
        self.model = build_model(int(params.get("hidden", 64)))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=float(params.get("lr", 0.05)), momentum=0.9)
        # cosine decay to 0: the end point is stable, so an interrupted run can be compared with the control
        self.schedule = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=self.steps)
        self.batches = torch.Generator().manual_seed(ctx.seed)

    def state(self, step: int) -> dict:
        return {"step": step, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "schedule": self.schedule.state_dict(),
                "rng": {"torch": torch.get_rng_state(), "batches": self.batches.get_state(),
                        "python": random.getstate()}}

    def restore(self, state: dict) -> int:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["rng"]["torch"])
        self.batches.set_state(state["rng"]["batches"])
        random.setstate(state["rng"]["python"])
        return int(state["step"])

    def train_step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        self.model.train()
        idx = torch.randint(0, len(x), (self.batch_size,), generator=self.batches)
        self.optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(self.model(x[idx]), y[idx])
        loss.backward()
        self.optimizer.step()
        self.schedule.step()
        return loss.item()


def resume(ctx, trainer: Trainer, directory: Path) -> int:
    """Quarantine partial writes, load the newest complete checkpoint; returns the step to start at."""
    with ctx.evidence.span("checkpoint.resume", **{"faultlib.attempt": ctx.attempt}) as span:
        partials = checkpoint.quarantine_partials(directory)
        found = [s for s, _ in checkpoint.complete_checkpoints(directory)]
        latest, unreadable = checkpoint.load_latest(directory)
        for path, error in unreadable:
            ctx.report(Finding("checkpoint_integrity", "error", f"published checkpoint {path.name} does not load: "
                               f"{error}", {"file": path.name}, {"error": error}))
        for name, size in partials:
            ctx.report(Finding("checkpoint_partial_write", "warning",
                               f"an interrupted checkpoint write left {name} ({size} bytes); it was never published "
                               "and was moved to partial/", {"file": name}, {"bytes": size}))
        start = 0
        if latest is not None:
            start = trainer.restore(latest[2])
            ctx.report(Finding("training_resume", "warning",
                               f"training restarted (attempt {ctx.attempt}) and resumed from {latest[1].name} "
                               f"at step {start}", {"step": start, "file": latest[1].name},
                               {"attempt": ctx.attempt, "checkpoints": found}))
        span.set_attributes({"resumed_from_step": start, "checkpoints_found": found,
                             "partial_files": [n for n, _ in partials], "partial_bytes": [b for _, b in partials]})
    return start


def save(ctx, trainer: Trainer, directory: Path, step: int, keep_last: int) -> float:
    """Publish the checkpoint of ``step`` atomically, prune old ones; returns the time taken in ms."""
    started = time.perf_counter()
    state = trainer.state(step)
    with ctx.evidence.span("checkpoint.save", step=step, **{"faultlib.attempt": ctx.attempt}) as span:
        path, size = checkpoint.save_atomic(
            state, directory, step,
            mid_write=lambda n, total: ctx.fault_point("checkpoint.write", step=step, bytes_written=n,
                                                       bytes_total=total))
        pruned = checkpoint.prune(directory, keep_last)
        span.set_attributes({"bytes": size, "file": path.name, "pruned": [p.name for p in pruned]})
    return (time.perf_counter() - started) * 1e3


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        every, keep_last = int(p.get("checkpoint_every", 25)), int(p.get("keep_last", 3))
        torch.set_num_threads(1)
        torch.manual_seed(ctx.seed)
        random.seed(ctx.seed)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        trainer = Trainer(ctx, p)
        ctx.attach(trainer.model)
        directory = ctx.dump_dir / "checkpoints"

        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run by this process")
        loss_gauge = ctx.evidence.gauge("faultlib_train_loss", "training loss of the last step")
        written = ctx.evidence.counter("faultlib_checkpoints_written_total", "checkpoints published")
        write_ms = ctx.evidence.histogram("faultlib_checkpoint_write_duration_ms", "serialise+write+fsync+rename", "ms")
        durable_step = ctx.evidence.gauge("faultlib_checkpoint_step", "step of the newest published checkpoint")
        resumes = ctx.evidence.counter("faultlib_train_resumes_total", "starts that resumed from a checkpoint")
        resumed_from = ctx.evidence.gauge("faultlib_resumed_from_step", "step training resumed from (0: fresh)")

        start = resume(ctx, trainer, directory)
        resumes.add(1 if start else 0)
        resumed_from.set(start)
        for step in range(start, trainer.steps):
            with ctx.step(step, total=trainer.steps) as span:
                loss = trainer.train_step(x_train, y_train)
                steps_total.add(1)
                loss_gauge.set(loss)
                span.set(loss=loss, lr=trainer.schedule.get_last_lr()[0])
            if (step + 1) % every == 0 or step + 1 == trainer.steps:
                write_ms.record(save(ctx, trainer, directory, step + 1, keep_last))
                written.add(1)
                durable_step.set(step + 1)

        trainer.model.eval()
        with torch.no_grad():
            accuracy = (trainer.model(x_test).argmax(1) == y_test).float().mean().item()
        ctx.log.info("held-out accuracy %.4f after %d steps (resumed from %d, attempt %d)",
                     accuracy, trainer.steps, start, ctx.attempt)
        print(f"accuracy={accuracy:.4f} resumed_from={start} attempt={ctx.attempt}")
        ctx.summary(accuracy=accuracy, steps=trainer.steps, resumed_from_step=start, attempt=ctx.attempt,
                    checkpoints=[s for s, _ in checkpoint.complete_checkpoints(directory)])


if __name__ == "__main__":
    main()
