"""``check onnx`` on real models nobody here wrote, with the runtime as oracle.

Every ``*.onnx`` under the given directories (for example the ONNX repository's backend test data, checked
out outside this repository, and the models that installed packages ship) is:

1. read and checked as ``faultlib check onnx`` does (``check_file``: without the onnx package where it can; a
   model it refuses as corrupt is counted apart);
2. given to each runtime in a probe worker (:class:`faultlib.detect.serving.onnx.oracle.Worker`), fed the
   model's own test inputs (``test_data_set_0/input_*.pb`` beside it) when it has them, else generated ones;
   the answer is sorted by :func:`~faultlib.detect.serving.onnx.oracle.classify` (only compatibility failures
   count as "refused"; the rest are excluded, by reason);
3. predicted by that check with the matching target: the installed onnxruntime (its own registry) and
   ``onnxruntime==1.16.3`` (the release table shipped with faultlib; that runtime is never imported here).

Usage: ``python benchmarks/onnx_real_models.py DIR... [--ort116 PYTHON] [--json] [--disagreements N]``.
Nothing from the models is kept: the output is counts and the paths where the two disagree. Always exits 0.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import sys
import time
from pathlib import Path

from faultlib.detect.serving.onnx import oracle, parse_target
from faultlib.detect.serving.onnx.check import check_file
from faultlib.errors import InputError
from faultlib.findings import Severity


def _npz(model_path: Path) -> bytes:
    """The model's first test inputs as ``.npz`` bytes (``b""`` when it has none)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    data_dir = model_path.parent / "test_data_set_0"
    if not data_dir.is_dir():
        return b""
    loaded = onnx.load(str(model_path), load_external_data=False)
    initializers = {t.name for t in loaded.graph.initializer}
    names = [i.name for i in loaded.graph.input if i.name not in initializers]
    arrays = {}
    for i, name in enumerate(names):
        pb = data_dir / f"input_{i}.pb"
        if not pb.is_file():
            return b""
        tensor = onnx.TensorProto()
        tensor.ParseFromString(pb.read_bytes())
        if not tensor.name and not tensor.dims and not tensor.raw_data and tensor.data_type == 0:
            return b""  # a sequence or optional input: not a plain tensor
        arrays[name] = numpy_helper.to_array(tensor)
        if arrays[name].dtype.kind in "OUSV" or arrays[name].dtype.name in ("bfloat16",):
            return b""  # strings and ml_dtypes arrays cannot go through a pickle-free .npz
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def measure(paths: list[Path], python: str, spec: str | None, show: int) -> dict:
    target = parse_target(spec)
    worker = oracle.Worker(python)
    counts, excluded, refused_why, levels, onnx_free = (collections.Counter() for _ in range(5))
    wrong, corrupt = [], []
    start = time.monotonic()
    for i, path in enumerate(paths):
        if i % 200 == 0:
            print(f"[{spec or 'installed'}] {i}/{len(paths)} models, {time.monotonic() - start:.0f} s", file=sys.stderr)
        try:
            loaded, report = check_file(path, target, try_fix=False)
        except InputError as exc:
            corrupt.append(f"{path}: {exc.message[:120]}")
            continue
        try:
            npz = _npz(path)
        except Exception:  # noqa: BLE001 - test data the helper cannot read: generated inputs instead
            npz = b""
        truth = oracle.classify(worker.ask(path.read_bytes(), npz))
        if truth.startswith("excluded:"):
            excluded[truth.split(":", 1)[1]] += 1
            continue
        refused = truth.startswith("refused:")
        if refused:
            refused_why[truth.split(":", 1)[1]] += 1
        onnx_free[loaded.onnx_free] += 1
        blocked = any(f.severity >= Severity.ERROR for f in report.findings)
        levels[report.level] += 1
        counts[("t" if blocked == refused else "f") + ("p" if blocked else "n")] += 1
        if blocked != refused:
            wrong.append({"model": str(path), "runtime": truth,
                          "check": sorted({f.kind for f in report.findings if f.severity >= Severity.WARNING})
                          or [report.level]})
    worker.close()
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    return {"target": spec or "installed", "models": len(paths), "counted": sum(counts.values()),
            "refused": tp + fn, "tp": tp, "fp": fp, "fn": fn, "tn": counts["tn"],
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
            "refused_by_reason": dict(refused_why), "excluded_by_reason": dict(excluded), "levels": dict(levels),
            "onnx_free": onnx_free[True], "needed_onnx_package": onnx_free[False], "corrupt": corrupt, "disagreements": wrong[:show], "seconds": round(time.monotonic() - start, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--ort116", metavar="PYTHON", help="python of a venv with onnxruntime==1.16.3")
    parser.add_argument("--disagreements", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paths = sorted(p for d in args.dirs for p in d.rglob("*.onnx") if p.is_file() and not p.is_symlink())
    targets = [(sys.executable, None)] + ([(args.ort116, "onnxruntime==1.16.3")] if args.ort116 else [])
    results = [measure(paths, python, spec, args.disagreements) for python, spec in targets]
    if args.json:
        print(json.dumps({"targets": results}, indent=2))
        return 0
    for r in results:
        print(f"{r['target']}: precision {r['precision']:.3f}, recall {r['recall']:.3f} of 'will not load/run' "
              f"({r['counted']} of {r['models']} models counted, {r['refused']} refused; tp {r['tp']}, fp {r['fp']}, "
              f"fn {r['fn']}; {len(r['corrupt'])} refused as corrupt by load_model; {r['seconds']} s)")
        print(f"  refused by reason: {r['refused_by_reason']}")
        print("  excluded: " + ", ".join(f"{k} {v}" for k, v in sorted(r["excluded_by_reason"].items())))
        print(f"  levels: {r['levels']}; checked without the onnx package: {r['onnx_free']} of {r['counted']} "
              "(the others: imported it)")
        for d in r["disagreements"]:
            print(f"  disagree: {d['model']}: runtime {d['runtime']}, check {d['check']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
