"""``faultlib check onnx`` warm, cold and on ten models, against start-up baselines measured in the same run;
and ``--differential``: the onnx-free path against the path that imports onnx, report for report.

Usage (from the repository root)::

    python benchmarks/onnx_speed.py [MODEL.onnx ...] [--repeats 5] [--json]
    python benchmarks/onnx_speed.py --differential DIR... [--json]

Speed. Each command runs ``--repeats`` times, interleaved (a change of load hits every command alike); the
median CPU time (user + system of the child, ``resource.getrusage``) and wall time are kept:

- ``python_start``: ``python -c pass``; ``help``: ``faultlib --help`` (the CLI's own start-up);
- ``import_onnx``: ``python -c "import onnx"``, what a warm check no longer pays;
- ``check_cold``: ``faultlib check onnx M`` with an empty cache directory (the spec cache is built from onnx,
  the kernel registry from onnxruntime); ``check_warm``: the same again with that cache;
- ``check_warm_10``: ten models in one call.

Bytecode is compiled once before the runs (into this run's own ``PYTHONPYCACHEPREFIX``), as an installed
package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set.

The models (default, found without importing anything): the ONNX package's ``backend/test/data/light/``
networks (AlexNet, DenseNet-121, Inception v1/v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512; real
graphs, weights stripped) and onnxruntime's ``datasets/logreg_iris.onnx``; the single model is
``light_resnet50.onnx`` (415 nodes). Goals (issue 18): ``check_warm`` < 0.5 s of CPU, and (same run, load
independent) < 0.5x the CPU of ``import onnx``; the script exits 1 when one is missed. CPU, not wall: the
check is one thread doing little I/O, so on an idle machine its wall time is its CPU time, while on a shared
one the wall time measures the load (the table prints both).

Differential: every ``*.onnx`` under the directories is checked by ``check_file`` (onnx-free when it can)
and by ``load_model`` + ``check_model`` (the onnx package, ``onnx.shape_inference``), for the installed
onnxruntime and for ``onnxruntime==1.16.3`` (the shipped table); the two reports (or refusals) must be equal.
It prints how many checks stayed onnx-free and why the others needed the package; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 0.5
#: the same-run ratio: a warm check costs less than half of ``import onnx`` alone (before, it paid all of it)
GOAL_RATIO = 0.5


def default_models() -> list[Path]:
    """The installed onnx package's light networks and onnxruntime's logistic regression, located without
    importing either package."""
    found = []
    for package, folder, pattern in (("onnx", "backend/test/data/light", "*.onnx"),
                                     ("onnxruntime", "datasets", "logreg_iris.onnx")):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            found += sorted((Path(location) / folder).glob(pattern))
    return found


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """``(cpu seconds, wall seconds)`` of one run (exit code not judged: a check exits 1 on a finding)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def speed(models: list[Path], repeats: int) -> dict:
    faultlib = str(Path(sys.executable).with_name("faultlib"))
    single = next((m for m in models if m.name == "light_resnet50.onnx"), models[0])
    ten = models[:10]
    work = Path(tempfile.mkdtemp(prefix="faultlib-onnx-speed-"))
    # bytecode as an installed package has it (compiled once, into a folder of this run's own), whatever
    # PYTHONDONTWRITEBYTECODE says here: a user's first run compiles, later ones do not
    python_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python_env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    base = {**python_env, "FAULTLIB_CACHE_DIR": str(work / "warmup")}
    for argv in ([faultlib, "--help"], [faultlib, "check", "onnx", *map(str, ten)], [sys.executable, "-c",
                                                                                   "import onnx"]):
        measure(argv, base)  # compiles the bytecode; fills no cache that is measured
    samples: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
    for i in range(repeats):
        env = {**python_env, "FAULTLIB_CACHE_DIR": str(work / f"cache{i}")}
        samples["python_start"].append(measure([sys.executable, "-c", "pass"], base))
        samples["help"].append(measure([faultlib, "--help"], base))
        samples["import_onnx"].append(measure([sys.executable, "-c", "import onnx"], base))
        samples["check_cold"].append(measure([faultlib, "check", "onnx", str(single)], env))
        samples["check_warm"].append(measure([faultlib, "check", "onnx", str(single)], env))
        samples["check_warm_10"].append(measure([faultlib, "check", "onnx", *map(str, ten)], env))
    cpu = {k: statistics.median(c for c, _ in v) for k, v in samples.items()}
    wall = {k: statistics.median(w for _, w in v) for k, v in samples.items()}
    ratio = cpu["check_warm"] / cpu["import_onnx"]
    met = cpu["check_warm"] < GOAL_S and ratio < GOAL_RATIO
    return {"model": str(single), "models_10": [str(m) for m in ten], "cpu_s": cpu, "wall_s": wall,
            "check_warm_over_help_cpu": cpu["check_warm"] / cpu["help"],
            "check_warm_over_import_onnx_cpu": ratio,
            "goal_s": GOAL_S, "goal_ratio": GOAL_RATIO, "met": met,
            "meta": {"repeats": repeats, "load1": os.getloadavg()[0], "cpus": os.cpu_count()}}


def differential(dirs: list[Path]) -> dict:
    from faultlib.detect.serving.onnx import check_model, load_model, parse_target
    from faultlib.detect.serving.onnx.check import check_file
    from faultlib.detect.serving.onnx.specdata import NeedsOnnx
    from faultlib.errors import InputError

    def outcome(run):
        try:
            loaded, report = run()
        except InputError as exc:
            return {"error": str(exc)}, None
        return {"findings": [f.to_json() for f in report.findings], **report.fields()}, loaded.onnx_free

    paths = sorted(p for d in dirs for p in d.rglob("*.onnx") if p.is_file() and not p.is_symlink())
    tally = collections.Counter()
    why: collections.Counter = collections.Counter()
    differ = []
    for target in (parse_target(None), parse_target("onnxruntime==1.16.3")):
        for path in paths:
            fast, free = outcome(lambda: check_file(path, target))

            def with_onnx():
                loaded = load_model(path)
                return loaded, check_model(loaded, target)

            slow, _ = outcome(with_onnx)
            tally["checks"] += 1
            tally["refused (both)" if free is None else "onnx-free" if free else "needed the onnx package"] += 1
            if free is False:
                try:
                    check_model(load_model(path, onnx_free=True), target)
                except NeedsOnnx as exc:
                    why[str(exc).split(" runs as")[0].split("-")[0] + " (function body)"
                        if "function body" in str(exc) else str(exc)[:60]] += 1
            if fast != slow:
                differ.append((str(path), target.spec))
    return {"models": len(paths), "tally": dict(tally), "needed_onnx_for": dict(why.most_common()),
            "different": differ}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", type=Path, help="models to time (default: see the module docstring)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--differential", nargs="+", type=Path, metavar="DIR")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.differential:
        result = differential(args.differential)
        if args.json:
            print(json.dumps(result, indent=2))
        else:
            print(f"{result['models']} models x 2 targets: {result['tally']}")
            for reason, n in result["needed_onnx_for"].items():
                print(f"  needed the onnx package: {n:5d}  {reason}")
            print(f"different reports: {len(result['different'])}", *result["different"][:20], sep="\n  ")
        return 1 if result["different"] else 0
    result = speed(args.models or default_models(), args.repeats)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        meta = result["meta"]
        print(f"median of {meta['repeats']} interleaved runs; load average {meta['load1']:.1f} on {meta['cpus']} CPUs")
        print(f"model: {result['model']} (check_warm_10: {len(result['models_10'])} models in one call)")
        for name in result["cpu_s"]:
            print(f"  {name:<15} cpu {result['cpu_s'][name]:6.3f} s   wall {result['wall_s'][name]:6.3f} s")
        print(f"  check_warm / help: {result['check_warm_over_help_cpu']:.2f}x CPU; / import onnx: "
              f"{result['check_warm_over_import_onnx_cpu']:.2f}x (goal < {GOAL_RATIO})")
        print(f"  goal: check_warm < {GOAL_S} s CPU and < {GOAL_RATIO}x the onnx import: "
              f"{'met' if result['met'] else 'MISSED'}")
    return 0 if result["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
