"""dependency_drift: a checkpoint written under torch 2.5 no longer loads under torch >= 2.6.

Training: an MLP trains on scikit-learn's digits with Adam, then its checkpoint is published
atomically to ``dumps/<phase>/checkpoints/``: the weights, the optimizer, the step, the
hyper-parameters, the best held-out accuracy and the confusion matrix. The payload passes through the
fault point ``checkpoint.save``: in the control phase it is saved as tensors, plain dicts and floats;
in the faulted phase the ``legacy_checkpoint_objects`` shim saves the metadata as training scripts did
before torch 2.6 (``argparse.Namespace``, ``numpy.float64``, a NumPy array).

Serving loads the file as a serving process does, ``torch.load(path, map_location="cpu")``, with the
installed torch's default. Since torch 2.6 that default is ``weights_only=True``, and the faulted
checkpoint is refused (``_pickle.UnpicklingError: Weights only load failed``). Then:

1. the checkpoint detector (``faultlib check checkpoints``'s code) names the globals the pickle
   imports, statically, without unpickling it;
2. the fingerprint recorded where the checkpoint was written (``fingerprint-before.json``: torch
   2.5.1) is diffed against this environment's, and the known behaviour change the diff crosses
   (torch 2.6.0, ``torch.load``'s ``weights_only`` default) is reported with its reference;
3. mitigation: the file is loaded again with the default ``weights_only=True`` inside
   ``torch.serialization.safe_globals(...)`` holding exactly the globals torch names (the detector's
   list, plus any class torch names while rebuilding them), never ``weights_only=False``; the
   restored model's outputs must be bit-identical to the trained model's.

The fingerprint diff is recorded in both phases (span ``fingerprint.diff``); it becomes a finding
only when a load failed, so the control (same upgrade, tensors-only checkpoint) stays silent.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pickle
import re
from pathlib import Path

import numpy as np
import torch
from torch import nn

from faultlib import repro
from faultlib.detect.checkpoints.scan import scan
from faultlib.fingerprint import collect, diff, findings, known_changes, load
from faultlib.inject.data import through
from faultlib.workloads import digits_split

CASE_DIR = Path(__file__).resolve().parent
BEFORE = CASE_DIR / "fingerprint-before.json"
_MULTIARRAY = np._core.multiarray if hasattr(np, "_core") else np.core.multiarray
#: what this service trusts in its own checkpoints, by the name torch gives each global (module.qualname)
TRUSTED = {f"{o.__module__}.{o.__qualname__}": o for o in (
    argparse.Namespace, np.ndarray, np.dtype, _MULTIARRAY._reconstruct, _MULTIARRAY.scalar,
    type(np.dtype(np.float64)), type(np.dtype(np.int64)))}
_NAMED = re.compile(r"Unsupported global: GLOBAL ([\w.]+)|but got <class '([\w.]+)'>")


def build(hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 10))


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


def first_line(exc: BaseException) -> str:
    """The message's first line, without the ANSI bold torch puts around its warning."""
    return re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()[0]


def main() -> None:
    with repro.context() as ctx:
        p = ctx.params
        steps, hidden = int(p.get("steps", 120)), int(p.get("hidden", 64))
        batch_size, lr = int(p.get("batch_size", 64)), float(p.get("lr", 0.01))
        torch.manual_seed(ctx.seed)
        torch.set_num_threads(1)  # a 64-wide MLP: a second intra-op thread only spins (CPU time, not speed)
        x_train, y_train, x_test, y_test = digits_split(ctx.seed)
        model = build(hidden)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        ctx.attach(model)

        ev = ctx.evidence
        step_total = ev.counter("faultlib_train_steps_total", "training steps run")
        loads = ev.counter("faultlib_checkpoint_loads_total", "torch.load calls by loader and result (ok, refused)")
        unsafe_g = ev.gauge("faultlib_checkpoint_unsafe_globals", "globals the checkpoint's pickle imports that "
                            "weights_only=True refuses (detector, static)")
        changed_g = ev.gauge("faultlib_fingerprint_changed_packages", "packages whose version differs from the "
                             "recorded fingerprint")
        crossed_g = ev.gauge("faultlib_known_changes_crossed", "documented behaviour changes the fingerprint diff "
                             "crosses, by package")
        diff_g = ev.gauge("faultlib_reload_max_abs_diff", "max |logit difference| reloaded vs trained model")
        loads.add(0, loader="default", result="refused")  # from the start: a clean load reads 0, not "no data"
        unsafe_g.set(0)

        generator = torch.Generator().manual_seed(ctx.seed)
        for step in range(steps):
            with ctx.step(step, total=steps) as span:
                idx = torch.randint(0, len(x_train), (batch_size,), generator=generator)
                optimizer.zero_grad(set_to_none=True)
                loss = nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
                loss.backward()
                optimizer.step()
                span.set(loss=loss.item())
                step_total.add(1)
        model.eval()
        with torch.no_grad():
            expected = model(x_test)
        predicted = expected.argmax(1)
        accuracy = (predicted == y_test).float().mean().item()
        confusion = torch.bincount(y_test * 10 + predicted, minlength=100).reshape(10, 10)
        hparams = {"hidden": hidden, "lr": lr, "steps": steps, "batch_size": batch_size, "seed": ctx.seed}

        directory = ctx.dump_dir / "checkpoints"
        with ev.span("checkpoint.save", step=steps) as span:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": steps,
                     "args": hparams, "best_acc": accuracy, "confusion": confusion}
            state = through(ctx, "checkpoint.save", state, step=steps)
            path = publish(state, directory, steps)
            span.set_attributes({"file": path.name, "bytes": path.stat().st_size,
                                 "types": [f"{k}:{type(v).__module__}.{type(v).__qualname__}"
                                           for k, v in state.items()]})

        def serve(loaded: dict, loader: str) -> tuple[float, bool]:
            """The loaded weights in a fresh model: max |logit difference| to the trained model, and bit equality."""
            served = build(hidden)
            served.load_state_dict(loaded["model"])
            served.eval()
            with torch.no_grad():
                logits = served(x_test)
            gap = (logits - expected).abs().max().item()
            diff_g.set(gap, loader=loader)
            return gap, torch.equal(logits, expected)

        # serving: torch.load with the installed torch's default (weights_only=True since 2.6)
        refused = None
        with ev.span("checkpoint.load", loader="default", attempt=1) as span:
            try:
                loaded = torch.load(path, map_location="cpu")
            except pickle.UnpicklingError as exc:
                refused = exc
                loads.add(1, loader="default", result="refused")
                span.set_attributes({"result": "refused", "error_type": f"{type(exc).__module__}.{type(exc).__name__}",
                                     "error": first_line(exc), "named": _named(exc) or ""})
            else:
                loads.add(1, loader="default", result="ok")
                span.set_attributes({"result": "ok"})

        before = load(BEFORE)
        now = collect()
        drift = diff(before, now)
        crossed = known_changes(drift)
        with ev.span("fingerprint.diff") as span:
            changed_g.set(len(drift.packages))
            for package in sorted({c.package for c in crossed}):
                crossed_g.set(sum(1 for c in crossed if c.package == package), package=package)
            torch_moved = drift.packages.get("torch")
            span.set_attributes({"changed_packages": sorted(drift.packages), "selects_all": drift.selects_all(),
                                 "torch_before": torch_moved[0] if torch_moved else "",
                                 "torch_now": torch_moved[1] if torch_moved else "",
                                 "known_changes": [f"{c.package} {c.version}" for c in crossed],
                                 "references": [c.reference for c in crossed]})

        static: list[str] = []
        allowlist: list[str] = []
        named_at_load: list[str] = []
        if refused is None:
            gap, identical = serve(loaded, "default")
        else:
            with ev.span("checkpoint.scan") as span:
                result = scan([directory])
                status = next(s for s in result.files if Path(s.file).name == path.name)
                for finding in result.findings():
                    if finding.location.get("file") == status.file:  # this file's (not "nothing to resume from")
                        ctx.report(finding)
                static = list(status.unsafe_globals)
                unsafe_g.set(len(static))
                span.set_attributes({"file": path.name, "loads": status.loads, "kind": status.kind or "",
                                     "unsafe_globals": static})
            for finding in findings(drift, packages=["torch"], severity="error"):  # the cause, with its reference
                ctx.report(dataclasses.replace(finding, evidence={**finding.evidence, "error": first_line(refused),
                                                                  "unsafe_globals": static}))
            loaded, allowlist, named_at_load = allowlisted_load(path, static, ev, loads)
            gap, identical = serve(loaded, "allowlist")
        restored_args = vars(loaded["args"]) if isinstance(loaded["args"], argparse.Namespace) else loaded["args"]
        metadata_ok = (restored_args == hparams and float(loaded["best_acc"]) == accuracy
                       and bool(np.array_equal(np.asarray(loaded["confusion"]), confusion.numpy())))

        print(f"accuracy={accuracy:.4f} default={'refused' if refused else 'ok'} unsafe={static} "
              f"allowlist={allowlist} diff={gap} torch={drift.packages.get('torch')}")
        ctx.summary(accuracy=accuracy, checkpoint=path.name, default_load="refused" if refused else "ok",
                    error=first_line(refused) if refused else "", unsafe_globals=static, allowlist=allowlist,
                    named_at_load=named_at_load, max_abs_diff=gap, bit_identical=identical,
                    metadata_restored=metadata_ok, known_changes=[f"{c.package} {c.version}" for c in crossed])


def _named(exc: BaseException) -> str | None:
    """The global torch names in a weights-only refusal (``Unsupported global: GLOBAL x``, ``but got <class 'x'>``)."""
    found = _NAMED.search(str(exc))
    return (found.group(1) or found.group(2)) if found else None


def allowlisted_load(path: Path, names: list[str], ev, loads) -> tuple[dict, list[str], list[str]]:
    """Load ``path`` with ``weights_only=True`` (the default) and exactly the globals torch names allowlisted.

    Starts from ``names`` (the detector's static list); when torch refuses a class it only meets while
    rebuilding them (NumPy's dtype classes), the class it names is added if this service trusts it
    (:data:`TRUSTED`) and the load is retried. One ``checkpoint.load`` span per ``torch.load``.

    Returns:
        The loaded payload, the allowlist used, and the names torch added at load time.

    Raises:
        pickle.UnpicklingError: torch names a global that is not trusted.
    """
    allowlist, added = [n for n in names if n in TRUSTED], []
    untrusted = sorted(set(names) - set(TRUSTED))
    if untrusted:
        raise pickle.UnpicklingError(f"the checkpoint imports globals this service does not trust: {untrusted}")
    for attempt in range(1, len(TRUSTED) + 2):
        with ev.span("checkpoint.load", loader="allowlist", attempt=attempt, allowlist=sorted(allowlist)) as span:
            try:
                with torch.serialization.safe_globals([TRUSTED[n] for n in allowlist]):
                    loaded = torch.load(path, map_location="cpu")
            except pickle.UnpicklingError as exc:
                named = _named(exc)
                loads.add(1, loader="allowlist", result="refused")
                span.set_attributes({"result": "refused", "named": named or "", "error": first_line(exc)})
                if named is None or named not in TRUSTED or named in allowlist:
                    raise
                allowlist.append(named)
                added.append(named)
                continue
            loads.add(1, loader="allowlist", result="ok")
            span.set_attributes({"result": "ok"})
            return loaded, sorted(allowlist), added
    raise pickle.UnpicklingError(f"still refused after allowlisting {sorted(allowlist)}")


if __name__ == "__main__":
    main()
