"""covariate_shift: a breast-cancer classifier served behind a drift monitor while the imaging
device's magnification changes (feature_shift shim: every length 25 % larger, every area 56 %).

The model is a small MLP trained on 60 % of scikit-learn's breast_cancer data (569 fine-needle
aspirates, 30 nucleus measurements). The held-out 40 % is the drift reference, and the served
traffic is a resample of it: batches of 32 requests, 60 batches. A :class:`DriftMonitor` observes
every batch the model receives (a forward pre-hook registered after the shim's, so it sees what the
model sees) and keeps only bin counts and running moments over the last 256 rows.

Graded response (thresholds from ``repro.params.drift``): ``record`` and ``alert`` are reported;
``freeze`` freezes the weights and recalibrates the served model without labels: the input scaler
of every column the monitor names is moment-matched from the window's running moments back onto
the reference (``x -> (x - mean_window) / std_window * std_ref + mean_ref``). Once the monitor is
silent again the original scaler is restored. Each batch is also scored by the unmitigated model,
so the evidence shows the accuracy the shift costs and what the recalibration wins back. At three
points the batch detector (``faultlib check drift``'s engine, with MMD) compares the last window's
raw rows with the reference, and writes both tables to the dump directory.
"""

from collections import deque
from dataclasses import replace

import numpy as np
import torch
from torch import nn

from faultlib import repro
from faultlib.detect.data.drift import DriftConfig, DriftMonitor, Response, detect_drift

LEVEL = {r: i for i, r in enumerate(Response)}


class Standardize(nn.Module):
    """``(x - mean) / std`` with the statistics as buffers (part of the served artifact)."""

    def __init__(self, mean: torch.Tensor, std: torch.Tensor):
        super().__init__()
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())

    def forward(self, x):
        return (x - self.mean) / self.std


def build_model(mean: torch.Tensor, std: torch.Tensor, hidden: int) -> nn.Module:
    return nn.Sequential(Standardize(mean, std), nn.Linear(mean.numel(), hidden), nn.ReLU(), nn.Linear(hidden, 2))


def load(seed: int):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    data = load_breast_cancer()
    x_train, x_ref, y_train, y_ref = train_test_split(data.data, data.target, test_size=0.4, random_state=seed,
                                                      stratify=data.target)
    return ([str(n) for n in data.feature_names], torch.tensor(x_train, dtype=torch.float32),
            torch.tensor(y_train), torch.tensor(x_ref, dtype=torch.float32), torch.tensor(y_ref))


def train(model: nn.Module, x: torch.Tensor, y: torch.Tensor, steps: int, lr: float) -> None:
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)
        names, x_train, y_train, x_ref, y_ref = load(ctx.seed)
        mean, std = x_train.mean(0), x_train.std(0)
        model = build_model(mean, std, int(p.get("hidden", 32)))
        train(model, x_train, y_train, int(p.get("train_steps", 300)), float(p.get("lr", 0.01)))
        model.eval().requires_grad_(False)
        frozen = build_model(mean, std, int(p.get("hidden", 32)))   # the unmitigated twin, never recalibrated
        frozen.load_state_dict(model.state_dict())
        frozen.eval().requires_grad_(False)
        ctx.attach(model)  # faulted phase: feature_shift pre-hooks on the model's input

        import pandas as pd

        config = DriftConfig().updated(p.get("drift", {}), prefix="repro.params.drift")
        window, batch_size, steps = int(p.get("window", 256)), int(p.get("batch_size", 32)), int(p.get("steps", 60))
        reference = pd.DataFrame(x_ref.numpy().astype(np.float64), columns=names)
        monitor = DriftMonitor(reference, window=window, block=batch_size, min_rows=window, config=config)
        ref_mean, ref_std = x_ref.mean(0), x_ref.std(0)
        seen = {}
        recent = deque(maxlen=window // batch_size)   # raw rows of the last window, for the batch checks only

        def observe(_module, args):  # registered after the shims: sees the batch exactly as the model does
            seen["x"] = args[0]
            monitor.update(args[0].numpy())
            recent.append(args[0].numpy().astype(np.float64))
            return None

        model.register_forward_pre_hook(observe)
        batch_checks = set(p.get("batch_checks", [15, 27, 59]))

        m = ctx.evidence
        psi_gauge = m.gauge("faultlib_drift_psi", "population stability index of a column's window vs the reference")
        level_gauge = m.gauge("faultlib_drift_response_level", "graded response: 0 none, 1 record, 2 alert, 3 freeze")
        drifted_gauge = m.gauge("faultlib_drift_drifted_columns", "columns the monitor names as drifted")
        mmd_gauge = m.gauge("faultlib_drift_mmd_p_value", "MMD permutation p-value of the last window (batch check)")
        state_gauge = m.gauge("faultlib_drift_monitor_state_numbers", "numbers the streaming monitor holds")
        checks_total = m.counter("faultlib_drift_checks_total", "monitor checks, by response")
        predictions = m.counter("faultlib_predictions_total", "served predictions by model and outcome")

        rng = np.random.default_rng(ctx.seed)
        reported: tuple = (frozenset(), Response.NONE)
        recalibrated: list[str] = []
        states, responses = set(), []
        for step in range(steps):
            with ctx.step(step, total=steps, name="serve.batch") as span:
                idx = torch.as_tensor(rng.integers(0, len(x_ref), batch_size))
                labels = y_ref[idx]
                served = model(x_ref[idx]).argmax(1)            # shims and monitor act inside
                unmitigated = frozen(seen["x"]).argmax(1)        # the same shifted batch, original scaler
                for name, pred in (("served", served), ("unmitigated", unmitigated)):
                    correct = int((pred == labels).sum())
                    predictions.add(correct, model=name, outcome="correct")
                    predictions.add(batch_size - correct, model=name, outcome="wrong")
                attrs = {"accuracy": float((served == labels).float().mean()),
                         "unmitigated_accuracy": float((unmitigated == labels).float().mean()),
                         "monitor.state_numbers": monitor.state_size, "monitor.window_rows": monitor.window_rows}
                states.add(monitor.state_size)
                state_gauge.set(monitor.state_size)
                if monitor.window_rows >= window:
                    with m.span("drift.check", step=step) as check_span:
                        report = monitor.check()
                        check_span.set_attributes({"response": report.response.value,
                                                   "drifted": ",".join(report.drifted)})
                    response = report.response
                    checks_total.add(1, response=response.value)
                    level_gauge.set(LEVEL[response])
                    drifted_gauge.set(len(report.drifted))
                    for name, col in report.columns.items():
                        psi_gauge.set(col.psi, column=name)
                    if (frozenset(report.drifted), response) != reported:  # report changes, not every check
                        for finding in report.findings:
                            ctx.report(replace(finding, location={**finding.location, "step": step}))
                        reported = (frozenset(report.drifted), response)
                    # graded response: freeze -> recalibrate the named columns; silence -> restore
                    scaler = model[0]
                    if response == Response.FREEZE:
                        moments = monitor.window_moments()
                        cols = [names.index(c) for c in report.drifted]
                        w_mean = torch.tensor([moments[names[i]][0] for i in cols], dtype=torch.float32)
                        w_std = torch.tensor([max(moments[names[i]][1], 1e-6) for i in cols], dtype=torch.float32)
                        ratio = w_std / ref_std[cols]
                        scaler.std.copy_(std)
                        scaler.mean.copy_(mean)
                        scaler.std[cols] = std[cols] * ratio
                        scaler.mean[cols] = w_mean - (ref_mean[cols] - mean[cols]) * ratio
                        recalibrated = [names[i] for i in cols]
                    elif response <= Response.RECORD and recalibrated:
                        scaler.mean.copy_(mean)
                        scaler.std.copy_(std)
                        recalibrated = []
                    responses.append(response.value)
                    attrs.update({"drift.response": response.value, "drift.drifted": ",".join(report.drifted),
                                  "drift.recalibrated": ",".join(recalibrated),
                                  "drift.max_psi": max(c.psi for c in report.columns.values())})
                if step in batch_checks and len(recent) == recent.maxlen:
                    current = pd.DataFrame(np.concatenate(list(recent)), columns=names)
                    with m.span("drift.batch_check", step=step) as batch_span:
                        batch = detect_drift(reference, current, config=config)
                        joint = batch.multivariate
                        batch_span.set_attributes({"drifted": ",".join(batch.drifted), "response": batch.response.value,
                                                   "mmd.p_value": joint.result.p_value, "mmd.drifted": joint.drifted})
                    mmd_gauge.set(joint.result.p_value)
                    span.event("drift.batch_check", drifted=",".join(batch.drifted), response=batch.response.value,
                               mmd_p_value=joint.result.p_value, mmd_drifted=joint.drifted)
                    reference.to_csv(ctx.dump_dir / "reference.csv", index=False)
                    current.to_parquet(ctx.dump_dir / f"window_step{step}.parquet")
                span.set(**attrs)
        summary = {"states": len(states), "state_numbers": max(states), "rows_seen": monitor.rows_seen,
                   "final_recalibrated": ",".join(recalibrated), "responses": ",".join(sorted(set(responses)))}
        print(" ".join(f"{k}={v}" for k, v in summary.items()))
        ctx.summary(**summary)


if __name__ == "__main__":
    main()
