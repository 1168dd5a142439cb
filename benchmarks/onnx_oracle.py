"""``check onnx`` against the runtime as oracle: precision and recall of "will not load/run".

Every one-node model :func:`faultlib.detect.serving.onnx.oracle.generate` writes (every domain, op,
``since_version`` and input type the installed ``onnx`` defines) is given to a runtime in a worker process
(:mod:`faultlib.detect.serving.onnx.probe` run as a script; a crash kills only the worker, which is
restarted and the model excluded as ``crash``), and to ``check_model`` with the matching ``--target``.
The runtime's answer is sorted by :func:`~faultlib.detect.serving.onnx.oracle.classify`: only
compatibility failures count as "refused"; the rest are excluded and printed by reason.

Targets:

- ``installed``: the onnxruntime installed with faultlib (its own kernel registry: ``verified``);
- ``onnxruntime==1.16.3`` (the Triton 23.12 release): the runtime in its own virtual environment, given
  with ``--ort116 PYTHON`` (``python -m venv DIR && DIR/bin/pip install onnxruntime==1.16.3 'numpy<2'``);
  ``check_model`` predicts it from the release table shipped in the package, never from that runtime.

Usage: ``python benchmarks/onnx_oracle.py [--ort116 DIR/bin/python] [--ops Add,Cast] [--limit N] [--json]
[--disagreements N]`` (about 1-2 minutes per target on 2 cores). Progress goes to stderr. Goal:
precision >= 0.98 and recall >= 0.95 per target. Always exits 0.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time

from faultlib.detect.serving.onnx import oracle, parse_target


def measure(name: str, python: str, spec: str | None, cases: list, show: int) -> dict:
    target = parse_target(spec)
    worker = oracle.Worker(python)
    counts = collections.Counter()
    excluded = collections.Counter()
    refused_why = collections.Counter()
    levels = collections.Counter()
    wrong: list[dict] = []
    start = time.monotonic()
    for i, case in enumerate(cases):
        if i % 500 == 0:
            print(f"[{name}] {i}/{len(cases)} models, {time.monotonic() - start:.0f} s", file=sys.stderr)
        if case.excluded:
            excluded[case.excluded] += 1
            continue
        truth = oracle.classify(worker.ask(case.model.SerializeToString()))
        if truth.startswith("excluded:"):
            excluded[truth.split(":", 1)[1]] += 1
            continue
        refused = truth.startswith("refused:")
        if refused:
            refused_why[truth.split(":", 1)[1]] += 1
        blocked, level, kinds = oracle.predict(case, target)
        levels[level] += 1
        counts[("t" if blocked == refused else "f") + ("p" if blocked else "n")] += 1
        if blocked != refused:
            wrong.append({"case": case.key, "runtime": truth, "check": kinds or [level]})
    worker.close()
    tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
    result = {"target": spec or "installed", "runtime_python": python, "models": len(cases),
              "counted": sum(counts.values()), "refused": tp + fn, "tp": tp, "fp": fp, "fn": fn, "tn": counts["tn"],
              "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0,
              "refused_by_reason": dict(refused_why), "excluded_by_reason": dict(excluded),
              "levels": dict(levels), "disagreements": wrong[:show], "seconds": round(time.monotonic() - start, 1)}
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ort116", metavar="PYTHON", help="python of a venv with onnxruntime==1.16.3")
    parser.add_argument("--ops", help="comma-separated op names (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="first N models only")
    parser.add_argument("--disagreements", type=int, default=15, help="disagreements listed per target")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cases = list(oracle.generate(ops=set(args.ops.split(",")) if args.ops else None))[:args.limit]
    targets = [("installed", sys.executable, None)]
    if args.ort116:
        targets.append(("onnxruntime==1.16.3", args.ort116, "onnxruntime==1.16.3"))
    else:
        print("onnxruntime 1.16.3 not measured: pass --ort116 PYTHON", file=sys.stderr)
    results = [measure(name, python, spec, cases, args.disagreements) for name, python, spec in targets]
    if args.json:
        print(json.dumps({"targets": results, "excluded_reasons": oracle.EXCLUDED}, indent=2))
        return 0
    for r in results:
        print(f"{r['target']}: precision {r['precision']:.3f}, recall {r['recall']:.3f} of 'will not load/run' "
              f"({r['counted']} models counted, {r['refused']} refused by the runtime; tp {r['tp']}, fp {r['fp']}, "
              f"fn {r['fn']}; {r['seconds']} s)")
        print(f"  refused by reason: {r['refused_by_reason']}")
        print("  excluded: " + ", ".join(f"{k} {v}" for k, v in sorted(r["excluded_by_reason"].items())))
        print(f"  check levels: {r['levels']}")
        for d in r["disagreements"]:
            print(f"  disagree: {d['case']}: runtime {d['runtime']}, check {d['check']}")
    print("excluded reasons: " + "; ".join(f"{k}: {v}" for k, v in oracle.EXCLUDED.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
