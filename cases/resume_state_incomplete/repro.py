"""resume_state_incomplete: AMP fp16 training on scikit-learn's digits, checkpointed every
``checkpoint_every`` steps, preempted and resumed. A checkpoint is written from ``Trainer.state()``:
model, optimizer, cosine LR schedule, GradScaler, batch-order generator and the step. The faulted
phase's ``checkpoint_drop_state`` shim leaves the schedule and the GradScaler out (a helper that saves
only "the important part"); ``process_kill`` then SIGKILLs the trainer mid-run and the runner restarts
it (``repro.restarts``). Every file loads; the resumed run is another run.

The detector runs on the first checkpoint of a run, long before any preemption: the static analysis
of this very script (``faultlib check resume repro.py --checkpoint CKPT``) against what the file holds
names the objects the loop uses that the checkpoint lacks. The mitigation: from then on the trainer
writes the named objects' state beside every checkpoint (``*.resume.pt``) and restores it on resume.
At the resume the repro also measures what the unmitigated resume would have done: a scratch trainer
restored from the checkpoint alone runs ``probe_steps`` steps (spans ``resume.unmitigated``).
"""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import torch
from torch import nn

from faultlib import repro
from faultlib.detect import analyze_resume_file, checkpoint_coverage
from faultlib.workloads import digits_split


class Trainer:
    """Everything a checkpoint must hold to resume exactly."""

    def __init__(self, params: dict, seed: int):
        torch.manual_seed(seed)
        self.model = nn.Sequential(nn.Linear(64, int(params["hidden"])), nn.ReLU(), nn.Linear(int(params["hidden"]), 10))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=float(params["lr"]), momentum=0.9)
        self.schedule = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=int(params["steps"]))
        self.scaler = torch.amp.GradScaler("cpu", init_scale=65536.0, growth_interval=int(params["growth_interval"]))
        self.batches = torch.Generator().manual_seed(seed)
        self.batch_size = int(params["batch_size"])

    def state(self, step: int) -> dict:
        return {"step": step, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "schedule": self.schedule.state_dict(), "scaler": self.scaler.state_dict(),
                "batches": self.batches.get_state()}

    def restore(self, state: dict) -> int:
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        if "schedule" in state:  # optional keys: how a partial checkpoint loads without a word
            self.schedule.load_state_dict(state["schedule"])
        if "scaler" in state:
            self.scaler.load_state_dict(state["scaler"])
        self.batches.set_state(state["batches"])
        return int(state["step"])

    def train_step(self, x: torch.Tensor, y: torch.Tensor) -> dict:
        idx = torch.randint(0, len(x), (self.batch_size,), generator=self.batches)
        lr, scale = self.optimizer.param_groups[0]["lr"], self.scaler.get_scale()
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.cross_entropy(self.model(x[idx]), y[idx])
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.schedule.step()
        return {"loss": loss.item(), "lr": lr, "loss_scale": scale, "first_ids": idx[:4].tolist()}


def checkpoints(directory: Path) -> list[Path]:
    return sorted(directory.glob("ckpt-*[0-9].pt"))


def save(trainer: Trainer, directory: Path, step: int, extra: list[str]) -> Path:
    """Write the checkpoint of ``step`` (temp file + os.replace), and the ``extra`` objects' state beside it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"ckpt-{step:06d}.pt"
    state = trainer.state(step)
    torch.save(state, directory / ".tmp.pt")
    os.replace(directory / ".tmp.pt", path)
    if extra:  # the mitigation: what the checkpoint lacks, written beside it
        full = Trainer.state(trainer, step)
        torch.save({name: full[name] for name in extra}, directory / ".tmp.pt")
        os.replace(directory / ".tmp.pt", path.with_suffix(".resume.pt"))
    return path


def audit(ctx, path: Path, step: int) -> list[str]:
    """`faultlib check resume repro.py --checkpoint PATH`, in process; reports (at ``step``) and returns the
    objects the checkpoint lacks."""
    report = analyze_resume_file(__file__)
    _, lacking = checkpoint_coverage(report, torch.load(path, map_location="cpu", weights_only=True), path.name)
    for finding in [*report.findings, *lacking]:  # the script saves and restores everything: only the file can lack
        ctx.report(dataclasses.replace(finding, location={**finding.location, "step": step}))
    return [f.evidence["object"] for f in lacking]


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.set_num_threads(1)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        steps, every, probe_steps = int(p["steps"]), int(p["checkpoint_every"]), int(p["probe_steps"])
        trainer = Trainer(p, ctx.seed)
        ctx.attach(trainer)  # checkpoint_drop_state wraps trainer.state in the faulted phase
        directory = ctx.dump_dir / "checkpoints"

        loss_gauge = ctx.evidence.gauge("faultlib_train_loss", "training loss of the last step")
        lr_gauge = ctx.evidence.gauge("faultlib_lr", "learning rate of the last step")
        scale_gauge = ctx.evidence.gauge("faultlib_loss_scale", "GradScaler loss scale of the last step")
        missing_gauge = ctx.evidence.gauge("faultlib_checkpoint_missing_objects",
                                           "stateful objects the newest checkpoint lacks")
        resumes = ctx.evidence.counter("faultlib_train_resumes_total", "starts that resumed from a checkpoint")
        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run by this process")
        step_ms = ctx.evidence.histogram("faultlib_train_step_duration_ms", "training step wall time", "ms")
        missing_gauge.set(0)

        start, missing = 0, []
        found = checkpoints(directory)
        with ctx.evidence.span("checkpoint.resume", **{"faultlib.attempt": ctx.attempt}) as span:
            if found:
                latest = found[-1]
                state = torch.load(latest, map_location="cpu", weights_only=True)
                missing = audit(ctx, latest, int(state["step"]))
                missing_gauge.set(len(missing))
                if missing:  # measure the unmitigated resume: the checkpoint alone, in a scratch trainer
                    naive = Trainer(p, ctx.seed)
                    # its own copy: Optimizer.load_state_dict keeps the loaded momentum tensors (no copy), and
                    # the scratch steps would update them in place under the real trainer
                    first = naive.restore(torch.load(latest, map_location="cpu", weights_only=True))
                    for step in range(first, min(first + probe_steps, steps)):
                        with ctx.evidence.span("resume.unmitigated", **{"faultlib.step": step}) as probe:
                            probe.set_attributes(naive.train_step(x_train, y_train))
                sidecar = latest.with_suffix(".resume.pt")
                if sidecar.exists():
                    state = {**state, **torch.load(sidecar, map_location="cpu", weights_only=True)}
                start = trainer.restore(state)
            span.set_attributes({"resumed_from_step": start, "missing": missing})
        resumes.add(1 if start else 0)

        for step in range(start, steps):
            with ctx.step(step, total=steps) as span:
                started = time.perf_counter()
                out = trainer.train_step(x_train, y_train)
                loss_gauge.set(out["loss"])
                lr_gauge.set(out["lr"])
                scale_gauge.set(out["loss_scale"])
                steps_total.add(1)
                step_ms.record((time.perf_counter() - started) * 1e3)
                span.set(**out)
            if (step + 1) % every == 0:
                path = save(trainer, directory, step + 1, missing)
                if step + 1 == every and not found:  # the first checkpoint of the run: check it at once
                    missing = audit(ctx, path, step + 1)
                    missing_gauge.set(len(missing))
                    if missing:
                        save(trainer, directory, step + 1, missing)

        trainer.model.eval()
        with torch.no_grad():
            accuracy = (trainer.model(x_test).argmax(1) == y_test).float().mean().item()
        print(f"accuracy={accuracy:.4f} resumed_from={start} missing={missing} attempt={ctx.attempt}")
        ctx.summary(accuracy=accuracy, resumed_from_step=start, attempt=ctx.attempt, missing=missing,
                    final_loss_scale=trainer.scaler.get_scale())


if __name__ == "__main__":
    main()
