"""gradscaler_misuse: AMP fp16 training on scikit-learn's digits that clips gradients with
clip_grad_norm_. The healthy loop (the control) unscales first: scale(loss).backward(), unscale_,
clip, step, update. The faulted phase's shim (clip_before_unscale) defers the loop's unscale_ to
scaler.step, so the clip sees gradients multiplied by the loss scale (65536): the effective max_norm
is 1/65536, every update is a sliver, learning stalls, and nothing is ever non-finite.
GradScalerAudit names the clip call; `repair_after` steps later the repro turns on the audit's
repair (clip with max_norm x scale, exactly what unscaling first would do) and the run catches up.
"""

import time

import torch
from torch import nn

from faultlib import repro
from faultlib.detect import GradScalerAudit
from faultlib.workloads import digits_split


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        hidden, steps, batch_size = int(p["hidden"]), int(p["steps"]), int(p["batch_size"])
        max_norm, repair_after = float(p["max_norm"]), int(p["repair_after"])
        model = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, 10))
        ctx.attach(model)  # the faulted phase's shim patches GradScaler before the scaler is built
        optimizer = torch.optim.SGD(model.parameters(), lr=float(p["lr"]), momentum=0.9)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
        scaler = torch.amp.GradScaler("cpu", init_scale=65536.0)
        audit = GradScalerAudit(scaler, [optimizer])
        batches = torch.Generator().manual_seed(ctx.seed)

        loss_gauge = ctx.evidence.gauge("faultlib_train_loss", "training loss of the last step")
        lr_gauge = ctx.evidence.gauge("faultlib_lr", "learning rate of the last step")
        scale_gauge = ctx.evidence.gauge("faultlib_loss_scale", "GradScaler loss scale after the step")
        scaled_clips = ctx.evidence.counter("faultlib_scaled_clips_total", "clips of gradients still scaled")
        repairs = ctx.evidence.counter("faultlib_clip_repairs_total", "scaled clips repaired by the audit")
        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run")
        step_ms = ctx.evidence.histogram("faultlib_train_step_duration_ms", "training step wall time", "ms")
        scaled_clips.add(0)
        repairs.add(0)

        first_finding, reported = None, 0
        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                started = time.perf_counter()
                idx = torch.randint(0, len(x_train), (batch_size,), generator=batches)
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
                lr = schedule.get_last_lr()[0]
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                clipped_before = sum(f.evidence["count"] for f in audit.findings())
                repaired_before = audit.repaired
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # the call the audit names
                scale = scaler.get_scale()
                scaler.step(optimizer)
                scaler.update()
                schedule.step()
                findings = audit.findings()
                scaled = sum(f.evidence["count"] for f in findings) - clipped_before
                for finding in findings[reported:]:
                    ctx.report(finding)
                reported = len(findings)
                if findings and first_finding is None:
                    first_finding = step
                if first_finding is not None and step + 1 >= first_finding + repair_after:
                    audit.repair = True  # the mitigation, from the next step on
                loss_gauge.set(loss.item())
                lr_gauge.set(lr)
                scale_gauge.set(scaler.get_scale())
                scaled_clips.add(scaled)
                repairs.add(audit.repaired - repaired_before)
                steps_total.add(1)
                step_ms.record((time.perf_counter() - started) * 1e3)
                span.set(loss=loss.item(), lr=lr, loss_scale=scale, clip_norm=float(norm), scaled_clip=bool(scaled),
                         repaired=audit.repaired > repaired_before)
        audit.close()

        model.eval()
        with torch.no_grad():
            accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
        ctx.log.info("held-out accuracy %.4f after %d steps", accuracy, steps)
        print(f"accuracy={accuracy:.4f} first_finding={first_finding} repaired={audit.repaired}")
        ctx.summary(accuracy=accuracy, steps=steps, first_finding_step=first_finding, repaired=audit.repaired,
                    final_loss_scale=scaler.get_scale())


if __name__ == "__main__":
    main()
