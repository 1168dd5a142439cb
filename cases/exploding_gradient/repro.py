"""exploding_gradient: two identical digits classifiers train on the same batches while one
layer's gradient explodes in each (gradient_scale shim). One clips with clip_grad_norm_ (global),
the other clips every parameter on its own. The exploding-gradient detector fires on both; the
evidence records, step by step, what each clipping did to the healthy parameters.
"""

import torch
from torch import nn

from faultlib import repro
from faultlib.workloads import digits_split
from faultlib.detect import ExplodingGradientDetector, compare_clipping

STRATEGIES = ("global", "per_parameter")


def build_model(hidden: int = 64) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))


def clip_per_parameter(model: nn.Module, max_norm: float) -> None:
    """Cap each parameter's gradient L2 norm at max_norm on its own."""
    for p in model.parameters():
        if p.grad is not None:
            torch.nn.utils.clip_grad_norm_([p], max_norm)


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        base = build_model(p.get("hidden", 64))
        replicas = nn.ModuleDict({s: build_model(p.get("hidden", 64)) for s in STRATEGIES})
        for replica in replicas.values():
            replica.load_state_dict(base.state_dict())  # identical start
        ctx.attach(replicas)  # shims name parameters as "<strategy>.<layer>.weight"
        steps, batch_size, max_norm = int(p.get("steps", 300)), int(p.get("batch_size", 64)), float(p.get("max_norm", 5.0))
        optimizers = {s: torch.optim.SGD(replicas[s].parameters(), lr=p.get("lr", 0.1), momentum=0.9) for s in STRATEGIES}
        detectors = {s: ExplodingGradientDetector(replicas[s].named_parameters()) for s in STRATEGIES}
        batches = torch.Generator().manual_seed(ctx.seed)
        norm_gauge = ctx.evidence.gauge("faultlib_grad_global_norm", "global L2 gradient norm before clipping")
        kept_gauge = ctx.evidence.gauge("faultlib_healthy_grad_kept_ratio",
                                        "fraction of the healthy parameters' gradient norm left after clipping")
        exploded_total = ctx.evidence.counter("faultlib_exploding_grad_steps_total", "steps with an exploding gradient")
        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run")
        healthy_kept = {s: [] for s in STRATEGIES}

        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                idx = torch.randint(0, len(x_train), (batch_size,), generator=batches)
                attrs = {}
                for strategy in STRATEGIES:
                    model, optimizer = replicas[strategy], optimizers[strategy]
                    optimizer.zero_grad(set_to_none=True)
                    loss = nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
                    loss.backward()
                    norms, finding = detectors[strategy].observe(step)
                    comparison = compare_clipping(norms, max_norm)
                    kept = (comparison.healthy_kept_by_global if strategy == "global"
                            else comparison.healthy_kept_by_per_parameter)
                    if finding is not None:
                        ctx.report(finding)
                        span.event("clipping.comparison", strategy=strategy, **{
                            k: v for k, v in comparison.to_json().items() if not isinstance(v, dict)})
                        healthy_kept[strategy].append(kept)
                        exploded_total.add(1, strategy=strategy)
                    else:
                        exploded_total.add(0, strategy=strategy)
                    if strategy == "global":
                        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                    else:
                        clip_per_parameter(model, max_norm)
                    optimizer.step()
                    norm_gauge.set(norms.global_norm, strategy=strategy)
                    kept_gauge.set(kept, strategy=strategy)
                    attrs.update({f"{strategy}.loss": loss.item(), f"{strategy}.global_norm": norms.global_norm,
                                  f"{strategy}.healthy_kept": kept, f"{strategy}.exploded": finding is not None})
                steps_total.add(1)
                span.set(**attrs)
        summary = {}
        for strategy in STRATEGIES:
            model = replicas[strategy].eval()
            with torch.no_grad():
                summary[f"{strategy}.accuracy"] = (model(x_test).argmax(1) == y_test).float().mean().item()
            summary[f"{strategy}.weights_finite"] = all(bool(torch.isfinite(t).all()) for t in model.state_dict().values())
            kept = healthy_kept[strategy]
            summary[f"{strategy}.healthy_kept_min"] = min(kept) if kept else 1.0
            summary[f"{strategy}.exploded_steps"] = len(kept)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in summary.items()))
        ctx.summary(**summary, steps=steps, max_norm=max_norm)


if __name__ == "__main__":
    main()
