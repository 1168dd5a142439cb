"""variable_length_batching: a transformer on digits read as variable-length column sequences.

Each scikit-learn digit (8x8) is read left to right as a sequence of 8-pixel columns and the blank
columns at both ends are trimmed, so sequences are 2 to 8 steps long. A small transformer encoder
(masked attention pooling, linear head) classifies them. The pipeline's collate function passes the
data fault point ``data.collate``:

* control: ``faultlib.remedies.pad_collate`` pads each batch to its longest sequence and returns a mask;
  the batching check is silent and training runs;
* faulted: the ``collate_override`` shim swaps in ``default_collate`` (a refactor dropped
  ``collate_fn=``). The batching check, run on the loader before training, predicts which batch fails
  and at which sample; training then fails there with torch's own ``stack expects each tensor to be
  equal size``. The repro catches it, records it (span ``data.collate_error``, a finding) and trains
  with the mitigation: ``pad_collate`` plus a length-bucketing ``BucketBatchSampler``.

Both phases measure what padding costs (padding each batch to its longest vs length buckets) and check
that padding does not change the model's outputs for real positions (masked), while it does unmasked.
"""

from __future__ import annotations

import functools
import math
import re
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from faultlib import repro
from faultlib.remedies import BucketBatchSampler, pad_collate, padding_waste
from faultlib.detect.data.batching import check_batching
from faultlib.findings import Finding, Severity
from faultlib.inject.data import through

STACK_ERROR = re.compile(r"got \[([\d, ]*)\] at entry 0 and \[([\d, ]*)\] at entry (\d+)")


def digit_columns(seed: int):
    """Train/test splits of digits as column sequences: lists of float32 (T, 8) tensors and int labels."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    sequences = []
    for image in digits.images.astype(np.float32) / 16.0:
        columns = image.T                                   # (8 columns, 8 pixels), read left to right
        ink = np.nonzero(columns.sum(axis=1) > 0)[0]
        sequences.append(torch.from_numpy(np.ascontiguousarray(columns[ink[0]:ink[-1] + 1])))
    idx = np.arange(len(sequences))
    train, test = train_test_split(idx, test_size=0.25, random_state=seed, stratify=digits.target)
    pick = lambda ids: ([sequences[i] for i in ids], [int(digits.target[i]) for i in ids])  # noqa: E731
    return pick(train), pick(test)


class DigitColumns(Dataset):
    """Samples ``(sequence (T, 8) float32, label int)``; records the indices the loader asks for."""

    def __init__(self, sequences, labels):
        self.sequences, self.labels = sequences, labels
        self.requested: list[int] = []

    def __len__(self) -> int:
        return len(self.sequences)

    def __getitem__(self, i: int):
        self.requested.append(int(i))
        return self.sequences[i], self.labels[i]

    def lengths(self) -> list[int]:
        return [int(s.shape[0]) for s in self.sequences]


class ColumnTransformer(nn.Module):
    """Embedding + learned positions, one TransformerEncoder layer, masked attention pooling, a linear head.

    ``forward(x, mask)``: x (B, T, 8) float32, mask (B, T) bool True at real positions -> logits (B, 10).
    """

    def __init__(self, d_model: int = 32, heads: int = 4, max_len: int = 8):
        super().__init__()
        self.embed = nn.Linear(8, d_model)
        self.position = nn.Parameter(torch.zeros(max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.score = nn.Linear(d_model, 1)
        self.head = nn.Linear(d_model, 10)

    def scores(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.embed(x) + self.position[: x.shape[1]]
        h = self.encoder(h, src_key_padding_mask=~mask)
        return self.score(h).squeeze(-1), h                 # (B, T) pooling logits, (B, T, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits, h = self.scores(x, mask)
        weights = torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=1)
        return self.head((weights.unsqueeze(-1) * h).sum(1))


def to_inputs(batch):
    """A pad_collate batch -> (x, mask, y)."""
    x, mask, _lengths, (y,) = batch
    return x, mask, y


def evaluate(model, sequences, labels) -> float:
    model.eval()
    with torch.no_grad():
        x, mask, y = to_inputs(pad_collate(list(zip(sequences, labels))))
        return (model(x, mask).argmax(1) == y).float().mean().item()


def mask_invariance(model, sequences) -> dict:
    """Outputs of each sample alone vs inside a padded batch (pad values made large on purpose)."""
    model.eval()
    picks = sequences[:64]
    with torch.no_grad():
        alone = torch.cat([model(s.unsqueeze(0), torch.ones(1, s.shape[0], dtype=torch.bool)) for s in picks])
        padded = pad_collate(picks, pad_value=100.0)
        masked = model(padded.data, padded.mask)
        unmasked = model(padded.data, torch.ones_like(padded.mask))
        # -inf padding of pre-softmax scores: padded positions get exactly zero weight
        per_sample = [model.scores(s.unsqueeze(0), torch.ones(1, s.shape[0], dtype=torch.bool))[0][0] for s in picks]
        scores = pad_collate(per_sample, pad_value=float("-inf"))
        weights = torch.softmax(scores.data, dim=1)
        alone_weights = [torch.softmax(s, dim=0) for s in per_sample]
        weight_diff = max(float((weights[i, : len(w)] - w).abs().max()) for i, w in enumerate(alone_weights))
    return {"masked_max_abs_diff": float((masked - alone).abs().max()),
            "unmasked_max_abs_diff": float((unmasked - alone).abs().max()),
            "neg_inf_pad_weight": float(weights[~scores.mask].abs().max()) if (~scores.mask).any() else 0.0,
            "neg_inf_weight_max_abs_diff": weight_diff, "padded_batch": len(picks),
            "padded_positions": int((~padded.mask).sum())}


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        seed = ctx.seed
        torch.manual_seed(seed)
        torch.set_num_threads(1)
        batch_size, epochs = int(p.get("batch_size", 32)), int(p.get("epochs", 8))
        (train_x, train_y), (test_x, test_y) = digit_columns(seed)
        train = DigitColumns(train_x, train_y)
        model = ColumnTransformer(int(p.get("d_model", 32)))
        ctx.attach(model)
        optimizer = torch.optim.Adam(model.parameters(), lr=float(p.get("lr", 3e-3)))

        steps_total = ctx.evidence.counter("faultlib_train_steps_total", "training steps run")
        failures = ctx.evidence.counter("faultlib_collate_failures_total", "batches the loader could not collate")
        predicted = ctx.evidence.gauge("faultlib_batching_failing_batches", "batches the batching check predicts fail")
        waste = ctx.evidence.gauge("faultlib_padding_waste_ratio", "pad positions / all positions, per strategy")
        pads = ctx.evidence.counter("faultlib_pad_positions_total", "pad positions in trained batches, per strategy")
        invariance = ctx.evidence.gauge("faultlib_mask_invariance_max_abs_diff",
                                        "max |output alone - output in a padded batch|, per masking")
        accuracy_gauge = ctx.evidence.gauge("faultlib_eval_accuracy", "held-out accuracy")
        step_ms = ctx.evidence.histogram("faultlib_train_step_duration_ms", "training step wall time", "ms")
        failures.add(0)

        collate = through(ctx, "data.collate", pad_collate)   # faulted: default_collate
        with ctx.evidence.span("data.batching_check", batch_size=batch_size, shuffle_seed=seed):
            report = check_batching(train, batch_size, collate_fn=collate, shuffle_seed=seed,
                                    location={"file": "repro.py", "function": "DigitColumns"})
        train.requested.clear()
        for finding in report.findings:
            ctx.report(finding)
        predicted.set(len(report.failing_batches))
        pad_waste = report.padding_waste
        for strategy in ("pad_to_batch_max", "bucketed"):
            waste.set(pad_waste[strategy]["fraction"], strategy=strategy)

        lengths = train.lengths()
        step = 0

        def run_epoch(loader, strategy: str) -> None:
            nonlocal step
            model.train()
            for batch in loader:
                with ctx.step(step, name="train.step") as span:
                    started = time.perf_counter()
                    x, mask, y = to_inputs(batch)
                    optimizer.zero_grad(set_to_none=True)
                    loss = nn.functional.cross_entropy(model(x, mask), y)
                    loss.backward()
                    optimizer.step()
                    steps_total.add(1)
                    pads.add(int((~mask).sum()), strategy=strategy)
                    step_ms.record((time.perf_counter() - started) * 1e3)
                    span.set(loss=loss.item(), strategy=strategy, batch_len=int(x.shape[1]),
                             pad_positions=int((~mask).sum()))
                step += 1

        failure = None
        loader = DataLoader(train, batch_size=batch_size, shuffle=True, collate_fn=collate,
                            generator=torch.Generator().manual_seed(seed))
        try:
            run_epoch(loader, "pad_to_batch_max")              # epoch 0 with the pipeline's own collate
        except RuntimeError as exc:
            found = STACK_ERROR.search(str(exc))
            if found is None:
                raise
            batch = len(train.requested) // batch_size - (0 if len(train.requested) % batch_size else 1)
            indices = train.requested[batch * batch_size:(batch + 1) * batch_size]
            entry = int(found.group(3))
            failure = {"batch": batch, "entry_in_batch": entry, "dataset_index": indices[entry],
                       "reference_index": indices[0],
                       "reference_shape": [int(v) for v in found.group(1).split(",")],
                       "shape": [int(v) for v in found.group(2).split(",")], "error": str(exc)[:300]}
            failures.add(1)
            with ctx.evidence.span("data.collate_error", **failure):
                pass
            ctx.report(Finding("variable_length_batching.loader", Severity.ERROR,
                               f"training stopped at batch {batch}: {str(exc)[:200]}",
                               {"file": "repro.py", "function": "DigitColumns", "step": batch,
                                "index": indices[entry]},
                               failure, kind="collate_failure"))
            ctx.log.warning("collate failed at batch %d (sample %d); training with pad_collate + length buckets",
                            batch, indices[entry])

        if failure is None:
            strategy, rest = "pad_to_batch_max", range(1, epochs)
            make = lambda epoch: DataLoader(train, batch_size=batch_size, shuffle=True, collate_fn=collate,  # noqa: E731
                                            generator=torch.Generator().manual_seed(seed + epoch))
        else:
            strategy, rest = "bucketed", range(epochs)
            sampler = BucketBatchSampler(lengths, batch_size, seed=seed)

            def make(epoch):
                sampler.set_epoch(epoch)
                return DataLoader(train, batch_sampler=sampler, collate_fn=functools.partial(pad_collate))
        epoch_batches = {"pad_to_batch_max": [list(b) for b in torch.utils.data.BatchSampler(
            torch.utils.data.RandomSampler(train, generator=torch.Generator().manual_seed(seed)), batch_size, False)],
            "bucketed": BucketBatchSampler(lengths, batch_size, seed=seed).batches()}
        measured = {k: padding_waste(lengths, v).to_json() for k, v in epoch_batches.items()}
        for epoch in rest:
            run_epoch(make(epoch), strategy)

        accuracy = evaluate(model, test_x, test_y)
        accuracy_gauge.set(accuracy)
        with ctx.evidence.span("eval.mask_invariance") as span:
            check = mask_invariance(model, test_x)
            span.set_attributes(check)
        invariance.set(check["masked_max_abs_diff"], masking="masked")
        invariance.set(check["unmasked_max_abs_diff"], masking="unmasked")
        weights_finite = all(bool(torch.isfinite(t).all()) for t in model.state_dict().values())
        print(f"accuracy={accuracy:.4f} failure={failure} waste={measured} invariance={check}")
        summary = {"accuracy": accuracy, "steps": step, "strategy": strategy, "weights_finite": weights_finite,
                   "predicted_failing_batches": len(report.failing_batches), "batches_per_epoch": report.batches_checked,
                   "waste_pad_to_batch_max": measured["pad_to_batch_max"]["fraction"],
                   "waste_bucketed": measured["bucketed"]["fraction"],
                   "pad_positions_pad_to_batch_max": measured["pad_to_batch_max"]["pad"],
                   "pad_positions_bucketed": measured["bucketed"]["pad"],
                   "detector_waste_pad_to_batch_max": pad_waste["pad_to_batch_max"]["fraction"],
                   "detector_waste_bucketed": pad_waste["bucketed"]["fraction"],
                   "length_min": report.lengths["min"], "length_max": report.lengths["max"],
                   "varying_dim": report.varying_dim if report.varying_dim is not None else -1,
                   **check}
        if report.first_mismatch is not None:
            summary.update({f"predicted_{k}": v for k, v in report.first_mismatch.to_json().items()
                            if k in ("batch", "dataset_index", "entry_in_batch", "reference_index")})
            summary["predicted_shape"] = str(report.first_mismatch.shape)
            summary["predicted_reference_shape"] = str(report.first_mismatch.reference_shape)
        if failure is not None:
            summary.update({f"observed_{k}": v for k, v in failure.items() if k != "error"})
            summary["observed_shape"] = str(failure["shape"])
            summary["observed_reference_shape"] = str(failure["reference_shape"])
        ctx.summary(**summary)
        assert math.isfinite(accuracy)


if __name__ == "__main__":
    main()
