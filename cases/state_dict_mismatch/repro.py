"""state_dict_mismatch: a digits classifier saved by a wrapped training run, reloaded by bare serving code.

Training: the MLP of model.py trains on scikit-learn's digits with Adam, then its checkpoint
(``{"model": model.state_dict(), "optimizer": ..., "step": ...}``) is published atomically to
``dumps/<phase>/checkpoints/``. In the faulted phase the ``checkpoint_wrappers`` shim makes
``model.state_dict()`` name the keys as ``torch.compile(nn.DataParallel(model))`` does
(``_orig_mod.module.features.0.weight``...): the training job's wrappers.

Serving builds the bare model (``model.build()``) and loads the file three ways:

1. ``load_state_dict(strict=True)``: raises on the faulted checkpoint (every key missing and unexpected);
2. ``load_state_dict(strict=False)``: "works", loads nothing, and serves a randomly initialised model;
3. ``faultlib.safe_load_state_dict``: infers the remap (``_orig_mod.module.`` -> ``""``), loads, and
   must give outputs bit-identical to the trained model's.

The detector (``compare``) reports the remap as findings; the checkpoint directory is scanned for
files that do not load. Finally training resumes for a few steps from the safe-loaded model and the
remapped optimizer state, and must land on exactly the weights the original model reaches.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import torch
from torch import nn

from faultlib import repro, safe_load_state_dict
from faultlib.detect.checkpoints.scan import read_checkpoint, scan
from faultlib.detect.checkpoints.optimizer_state import Param
from faultlib.detect.checkpoints.state_dict import compare, shapes_of
from faultlib.workloads import digits_split
from model import build


def train_steps(model, optimizer, x, y, steps: int, generator: torch.Generator, batch_size: int, ctx=None,
                name: str = "train.step", start: int = 0, metrics=None) -> float:
    loss_value = float("nan")
    for step in range(start, start + steps):
        def one() -> float:
            model.train()
            idx = torch.randint(0, len(x), (batch_size,), generator=generator)
            optimizer.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            return loss.item()

        if ctx is None:
            loss_value = one()
            continue
        with ctx.step(step, total=start + steps, name=name) as span:
            loss_value = one()
            span.set(loss=loss_value)
            if metrics is not None:
                metrics[0].add(1)
                metrics[1].set(loss_value)
    return loss_value


def evaluate(model, x, y) -> tuple[torch.Tensor, float]:
    model.eval()
    with torch.no_grad():
        logits = model(x)
    return logits, (logits.argmax(1) == y).float().mean().item()


def publish(state: dict, directory: Path, step: int) -> Path:
    """Write atomically: temporary file in the same directory, fsync, os.replace."""
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / f"ckpt-{step:06d}.pt"
    temp = directory / f".{final.name}.tmp-{os.getpid()}"
    with open(temp, "wb") as fh:
        torch.save(state, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temp, final)
    return final


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        steps, resume_steps = int(p.get("steps", 150)), int(p.get("resume_steps", 20))
        batch_size, hidden = int(p.get("batch_size", 64)), int(p.get("hidden", 64))
        torch.set_num_threads(1)
        torch.manual_seed(ctx.seed)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        model = build(hidden)
        optimizer = torch.optim.Adam(model.parameters(), lr=float(p.get("lr", 0.01)))
        ctx.attach(model)

        ev = ctx.evidence
        step_total = ev.counter("faultlib_train_steps_total", "training steps run")
        loss_gauge = ev.gauge("faultlib_train_loss", "training loss of the last step")
        missing_g = ev.gauge("faultlib_state_dict_keys_missing", "model keys the checkpoint does not provide")
        unexpected_g = ev.gauge("faultlib_state_dict_keys_unexpected", "checkpoint keys the model does not have")
        rules_g = ev.gauge("faultlib_state_dict_remap_rules", "key remap rules the detector inferred")
        loads = ev.counter("faultlib_checkpoint_loads_total", "checkpoint loads by loader and outcome")
        diff_g = ev.gauge("faultlib_reload_max_abs_diff", "max |logit difference| reloaded vs trained model")
        accuracy_g = ev.gauge("faultlib_reload_accuracy", "held-out accuracy of the trained and reloaded models")
        unloadable_g = ev.gauge("faultlib_checkpoints_unloadable", "checkpoint files that do not load")

        train_steps(model, optimizer, x_train, y_train, steps, torch.Generator().manual_seed(ctx.seed), batch_size,
                    ctx, metrics=(step_total, loss_gauge))
        expected, trained_accuracy = evaluate(model, x_test, y_test)
        accuracy_g.set(trained_accuracy, loader="trained")

        directory = ctx.dump_dir / "checkpoints"
        with ev.span("checkpoint.save", step=steps) as span:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": steps}
            path = publish(state, directory, steps)
            keys = list(state["model"])
            span.set_attributes({"file": path.name, "bytes": path.stat().st_size, "keys": len(keys),
                                 "first_key": keys[0]})

        content = read_checkpoint(path).content  # weights_only=True, after the bytes are identified
        saved = content["model"]
        with ev.span("checkpoint.load", loader="strict") as span:
            strict_error = None
            try:
                build(hidden).load_state_dict(saved, strict=True)
                loads.add(1, loader="strict", outcome="ok")
            except RuntimeError as exc:
                strict_error = str(exc).splitlines()[0]
                loads.add(1, loader="strict", outcome="error")
            lenient = build(hidden)
            incompatible = lenient.load_state_dict(saved, strict=False)
            logits, lenient_accuracy = evaluate(lenient, x_test, y_test)
            lenient_diff = (logits - expected).abs().max().item()
            loads.add(1, loader="strict_false", outcome="ok" if lenient_diff == 0 else "mismatch")
            missing_g.set(len(incompatible.missing_keys), stage="as_saved")
            unexpected_g.set(len(incompatible.unexpected_keys), stage="as_saved")
            diff_g.set(lenient_diff, loader="strict_false")
            accuracy_g.set(lenient_accuracy, loader="strict_false")
            span.set_attributes({"strict_error": strict_error or "", "strict_ok": strict_error is None,
                                 "missing": len(incompatible.missing_keys),
                                 "unexpected": len(incompatible.unexpected_keys),
                                 "strict_false_accuracy": lenient_accuracy, "strict_false_max_abs_diff": lenient_diff})

        serving = build(hidden)
        with ev.span("state_dict.check") as span:
            started = time.perf_counter()
            params = [Param(n, tuple(t.shape), t.requires_grad) for n, t in serving.named_parameters()]
            report = compare(content, shapes_of(serving.state_dict()), params=params, path=path.name)
            for finding in report.findings():
                ctx.report(finding)
            fields = report.fields()
            rules_g.set(len(fields["remap"]))
            missing_g.set(len(fields["missing"]), stage="remapped")
            unexpected_g.set(len(fields["unexpected"]), stage="remapped")
            span.set_attributes({"state_dict_location": fields["state_dict_location"],
                                 "remap_from": [r["from"] for r in fields["remap"]],
                                 "remap_to": [r["to"] for r in fields["remap"]],
                                 "before_missing": fields["before"]["missing"],
                                 "before_unexpected": fields["before"]["unexpected"],
                                 "missing": len(fields["missing"]), "unexpected": len(fields["unexpected"]),
                                 "shape_mismatch": len(fields["shape_mismatch"]), "renamed": fields["renamed"],
                                 "mapping_injective": len(set(report.remap.mapping.values())) == len(saved),
                                 "optimizer_order_ok": bool(fields["optimizer"] and fields["optimizer"]["order_ok"]),
                                 "duration_ms": (time.perf_counter() - started) * 1e3})

        with ev.span("checkpoint.safe_load") as span:
            loaded = safe_load_state_dict(serving, path)
            logits, safe_accuracy = evaluate(serving, x_test, y_test)
            safe_diff = (logits - expected).abs().max().item()
            loads.add(1, loader="safe_load", outcome="ok" if torch.equal(logits, expected) else "mismatch")
            diff_g.set(safe_diff, loader="safe_load")
            accuracy_g.set(safe_accuracy, loader="safe_load")
            span.set_attributes({"bit_identical": torch.equal(logits, expected), "max_abs_diff": safe_diff,
                                 "accuracy": safe_accuracy, "loaded": loaded.loaded,
                                 "rules": [f"{r.source}->{r.target}" for r in loaded.rules]})

        with ev.span("checkpoint.scan") as span:
            found = scan([directory])
            for finding in found.findings():
                ctx.report(finding)
            unloadable = sum(1 for s in found.files if not s.loads)
            unloadable_g.set(unloadable)
            span.set_attributes({"files": len(found.files), "unloadable": unloadable,
                                 "newest_loadable": Path(found.newest_loadable.file).name
                                 if found.newest_loadable else ""})

        # resume: the safe-loaded model and the saved optimizer state continue exactly as the original does
        resumed_optimizer = torch.optim.Adam(serving.parameters(), lr=float(p.get("lr", 0.01)))
        resumed_optimizer.load_state_dict(content["optimizer"])
        seed = ctx.seed + 1
        train_steps(model, optimizer, x_train, y_train, resume_steps, torch.Generator().manual_seed(seed), batch_size)
        train_steps(serving, resumed_optimizer, x_train, y_train, resume_steps, torch.Generator().manual_seed(seed),
                    batch_size, ctx, name="resume.step", start=steps)
        resume_diff = max((a - b).abs().max().item() for a, b in zip(model.parameters(), serving.parameters()))
        with ev.span("resume.compare", max_abs_diff=resume_diff, steps=resume_steps):
            pass

        print(f"trained={trained_accuracy:.4f} strict_ok={strict_error is None} strict_false={lenient_accuracy:.4f} "
              f"safe_load={safe_accuracy:.4f} diff={safe_diff} rules={[r.to_json()['from'] for r in loaded.rules]}")
        ctx.summary(trained_accuracy=trained_accuracy, strict_ok=strict_error is None,
                    strict_false_accuracy=lenient_accuracy, strict_false_max_abs_diff=lenient_diff,
                    safe_load_accuracy=safe_accuracy, safe_load_max_abs_diff=safe_diff,
                    bit_identical=bool(torch.equal(logits, expected)), keys=len(saved),
                    first_key=next(iter(saved)), resume_max_abs_diff=resume_diff, checkpoint=path.name)


if __name__ == "__main__":
    main()
