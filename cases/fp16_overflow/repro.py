"""fp16_overflow: AMP fp16 training on scikit-learn's digits with GradScaler, an overflow
sentinel and a circuit breaker. The same script runs the control and the faulted phase;
the faulted phase's shim (case.yaml) scales the first layer's activations past fp16 range.
"""

import time

import torch
from torch import nn

from faultlib import repro
from faultlib.workloads import digits_split
from faultlib.detect import BreakerAction, OverflowCircuitBreaker, OverflowSentinel


def build_model(hidden: int) -> nn.Module:
    # LayerNorm right after the first Linear: an activation outlier in front of it is
    # harmless in fp32 (LayerNorm is scale invariant) but overflows fp16 (max 65504).
    return nn.Sequential(
        nn.Linear(64, hidden), nn.LayerNorm(hidden), nn.ReLU(),
        nn.Linear(hidden, hidden // 2), nn.ReLU(),
        nn.Linear(hidden // 2, 10),
    )


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        model = build_model(p.get("hidden", 128))
        ctx.attach(model)
        optimizer = torch.optim.SGD(model.parameters(), lr=p.get("lr", 0.1), momentum=0.9)
        scaler = torch.amp.GradScaler("cpu", init_scale=65536.0)
        sentinel = OverflowSentinel(model.named_parameters(), scaler=scaler)
        breaker = OverflowCircuitBreaker(scaler)
        steps = int(p.get("steps", 300))
        batch_size = int(p.get("batch_size", 64))
        # cosine decay to 0: the final accuracy converges instead of wandering with the last batches
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
        batches = torch.Generator().manual_seed(ctx.seed)

        overflow_total = ctx.evidence.counter("faultlib_overflow_steps_total", "steps whose gradients overflowed")
        skipped_total = ctx.evidence.counter("faultlib_skipped_updates_total", "optimizer updates skipped")
        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run")
        breaker_total = ctx.evidence.counter("faultlib_breaker_actions_total", "circuit breaker actions")
        loss_scale = ctx.evidence.gauge("faultlib_loss_scale", "GradScaler loss scale after the step")
        amp_gauge = ctx.evidence.gauge("faultlib_amp_enabled", "1 while fp16 AMP is on, 0 in fp32 fallback")
        # the breaker restores the scale within 2 steps (milliseconds): only the lowest value since the last
        # snapshot (or scrape) shows the dip
        scale_low = ctx.evidence.watermark("faultlib_loss_scale_low", "lowest GradScaler loss scale since the "
                                           "last snapshot", keep="min")
        step_ms = ctx.evidence.histogram("faultlib_train_step_duration_ms", "training step wall time", "ms")
        for action in (BreakerAction.RESET_SCALE, BreakerAction.FALLBACK_FP32, BreakerAction.RESUME_AMP):
            breaker_total.add(0, action=action.value)  # every series from step 0: a quiet run reads 0, not "no data"

        steps = int(p.get("steps", 300))
        batch_size = int(p.get("batch_size", 64))
        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                started = time.perf_counter()
                idx = torch.randint(0, len(x_train), (batch_size,), generator=batches)
                amp = breaker.amp_enabled
                optimizer.zero_grad(set_to_none=True)
                with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
                    loss = nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
                scale_before = scaler.get_scale()
                if amp:
                    scaler.scale(loss).backward()
                    scaler.unscale_(optimizer)
                    check = sentinel.check(step, optimizer)
                    scaler.step(optimizer)  # GradScaler skips the step itself on inf/nan
                    scaler.update()
                    skipped = scaler.get_scale() < scale_before
                    scale_low.observe(scaler.get_scale())  # after GradScaler's halving, before the breaker acts
                else:
                    loss.backward()
                    check = sentinel.check(step)
                    skipped = check.overflow
                    if not skipped:
                        optimizer.step()
                schedule.step()
                decision = breaker.record(step, overflow=check.overflow, loss=loss.item())
                for finding in (check.finding(), decision.finding):
                    if finding is not None:
                        ctx.report(finding)
                steps_total.add(1)
                overflow_total.add(int(check.overflow))  # add(0) too: the series exists from step 0
                skipped_total.add(int(skipped))
                if decision.action not in (BreakerAction.NONE, BreakerAction.SKIPPED):
                    breaker_total.add(1, action=decision.action.value)
                loss_scale.set(scaler.get_scale())
                scale_low.observe(scaler.get_scale())
                amp_gauge.set(1 if breaker.amp_enabled else 0)
                step_ms.record((time.perf_counter() - started) * 1e3)
                span.set(loss=loss.item(), loss_scale=scale_before, overflow=check.overflow, skipped=skipped,
                         amp=amp, breaker_action=decision.action.value)

        model.eval()
        with torch.no_grad():
            accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
        weights_finite = all(bool(torch.isfinite(t).all()) for t in model.state_dict().values())
        ctx.log.info("held-out accuracy %.4f after %d steps", accuracy, steps)
        print(f"accuracy={accuracy:.4f} overflow_steps={sentinel.overflow_steps} "
              f"scale_set_back_to_initial={breaker.resets} fallbacks={breaker.fallbacks} resumes={breaker.resumes}")
        ctx.summary(accuracy=accuracy, weights_finite=weights_finite, steps=steps,
                    overflow_steps=sentinel.overflow_steps, scale_resets=breaker.resets,
                    fp32_fallbacks=breaker.fallbacks, amp_resumes=breaker.resumes,
                    final_loss_scale=scaler.get_scale(), amp_enabled_at_end=breaker.amp_enabled)


if __name__ == "__main__":
    main()
