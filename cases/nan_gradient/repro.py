"""nan_gradient: a digits classifier whose hand-written row normalisation has a finite forward
and a NaN backward on an all-zero row. The faulted run feeds a few blank samples; the gradient
sentinel catches the NaN gradients, the locator replays the step and names the module, the
autograd node (SqrtBackward0) and the aten op it ran (aten::div), a dump is written, and the
poisoned update is skipped.
"""

import time
from collections import OrderedDict

import torch
from torch import nn

from faultlib import repro
from faultlib.workloads import digits_split
from faultlib.detect import GradientSentinel, locate, write_dump


class RowNorm(nn.Module):
    """Scale each row to unit L2 norm, written by hand as it often is.

    Forward at an all-zero row: 0 / (0 + eps) = 0, finite. Backward: the gradient reaching the
    norm is -sum(h * g) / (norm + eps)^2 = 0 (h = 0), and the autograd node SqrtBackward0 computes
    grad / (2 * sqrt(s)) with the aten op aten::div: 0 / 0 = NaN, one per blank row, which then
    flows back into fc1's gradient. (torch.linalg.vector_norm or sqrt(s + eps) are safe.)
    """

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        norm = h.pow(2).sum(dim=-1, keepdim=True).sqrt()
        return h / (norm + 1e-6)


def build_model(hidden: int = 64) -> nn.Module:
    return nn.Sequential(OrderedDict(
        fc1=nn.Linear(64, hidden, bias=False),  # no bias: a blank input row stays all zero
        norm=RowNorm(),                          # before the ReLU (whose backward would mask the NaN)
        act=nn.ReLU(),
        head=nn.Linear(hidden, 10),
    ))


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        model = build_model(p.get("hidden", 64))
        ctx.attach(model)
        steps, batch_size = int(p.get("steps", 200)), int(p.get("batch_size", 64))
        optimizer = torch.optim.SGD(model.parameters(), lr=p.get("lr", 0.5), momentum=0.9)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
        sentinel = GradientSentinel(model.named_parameters())
        batches = torch.Generator().manual_seed(ctx.seed)
        nonfinite_total = ctx.evidence.counter("faultlib_nonfinite_grad_steps_total", "steps with NaN/inf gradients")
        skipped_total = ctx.evidence.counter("faultlib_skipped_updates_total", "optimizer updates skipped")
        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run")
        loss_gauge = ctx.evidence.gauge("faultlib_train_loss", "training loss of the last step")
        dumps = []

        def forward_backward(xb, yb):
            optimizer.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            return loss

        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                idx = torch.randint(0, len(x_train), (batch_size,), generator=batches)
                xb, yb = x_train[idx], y_train[idx]
                loss = forward_backward(xb, yb)
                check = sentinel.check(step)
                if check.overflow:
                    ctx.report(check.finding())
                    seen = {}
                    capture = model.register_forward_pre_hook(lambda _m, args: seen.setdefault("x", args[0].detach().clone()))
                    started = time.perf_counter()
                    event = locate(lambda: forward_backward(xb, yb), step=step)
                    capture.remove()
                    span.set(locate_ms=(time.perf_counter() - started) * 1e3)
                    if event is not None:
                        ctx.report(event.finding())
                    path = ctx.dump_dir / f"step{step}.pt"
                    dumps.append(write_dump(path, step=step, event=event, batch=(seen.get("x", xb), yb),
                                            loss=loss, model_state=model.state_dict(),
                                            optimizer_state=optimizer.state_dict()))
                    optimizer.zero_grad(set_to_none=True)  # skip the poisoned update
                else:
                    optimizer.step()
                schedule.step()
                steps_total.add(1)
                nonfinite_total.add(int(check.overflow))
                skipped_total.add(int(check.overflow))
                loss_gauge.set(loss.item())
                span.set(loss=loss.item(), nonfinite=check.overflow, skipped=check.overflow)
        model.eval()
        with torch.no_grad():
            accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
        weights_finite = all(bool(torch.isfinite(t).all()) for t in model.state_dict().values())
        print(f"accuracy={accuracy:.4f} nonfinite_steps={sentinel.overflow_steps} dumps={len(dumps)}")
        ctx.summary(accuracy=accuracy, weights_finite=weights_finite, steps=steps,
                    nonfinite_steps=sentinel.overflow_steps, dumps=dumps)


if __name__ == "__main__":
    main()
