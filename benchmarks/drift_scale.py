"""Time and peak memory of ``faultlib check drift`` as the tables grow, and the asymptotic MMD's false alarms.

For each size, two Parquet tables of N rows x 10 float64 columns (reference: standard normal; current:
the same with the mean of one column shifted by 0.01 sd, so every test has to run to the end) are
written to a temp directory, and ``faultlib check drift REF CUR --json`` runs as a child process. Its
wall time and peak resident memory (``ru_maxrss`` of that child, from ``os.wait4``) are printed per
size, beside the tables' bytes, so the memory the check adds beyond its input is visible. Goal (issue
21): 10^6 x 10 in <= 15 s and <= 2 GB; 10^7 x 10 completes (``FAULTLIB_MAX_TABLE_BYTES`` is raised for
it: its files are ~800 MB).

``--false-alarms K`` also draws K pairs of same-distribution samples of ``--fa-rows`` rows (default
50,000 pooled 100,000: above the permutation limit, so the asymptotic null is used) and reports how
often the MMD test rejects at p <= 0.05 (a Wilson interval; goal <= 5 %).

alibi-detect and Evidently are not run here: neither is installed in the project's environment, and
installing them pulls in large dependency trees (see the benchmark README for what was tried).

``--power K`` draws K data sets of ``--power-rows`` rows per sample (default 100,000: what ``check drift``'s
MMD reads of a larger table) for two changes no single column shows well, a 0.05 correlation between two
columns and a 0.02 sd mean shift of one, and reports how often MMD rejects at p <= 0.05.

Usage: ``python benchmarks/drift_scale.py [--sizes 100000,1000000] [--false-alarms 40] [--power 10] [--json]``.
Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def _tables(directory: Path, rows: int, seed: int) -> tuple[Path, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    paths = []
    for name, shift in (("ref", 0.0), ("cur", 0.01)):
        path = directory / f"{name}_{rows}.parquet"
        writer = None
        for start in range(0, rows, 1_000_000):   # written in row groups: the generator stays small
            size = min(1_000_000, rows - start)
            block = {f"f{j}": rng.standard_normal(size) + (shift if j == 0 else 0.0) for j in range(10)}
            table = pa.table(block)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
        writer.close()
        paths.append(path)
    return paths[0], paths[1]


_WRAPPER = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=float(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - started, "exit": done.returncode, "stdout": done.stdout,
                  "stderr": done.stderr[-2000:],
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def measure(rows: int, directory: Path, timeout: float) -> dict:
    """One ``check drift`` run on fresh tables, in a child of a fresh wrapper process, so the wrapper's
    ``RUSAGE_CHILDREN`` peak is that run's alone."""
    ref, cur = _tables(directory, rows, seed=rows % 1000)
    env = {**os.environ, "FAULTLIB_MAX_TABLE_BYTES": str(4 << 30)}
    command = [sys.executable, "-m", "faultlib", "check", "drift", str(ref), str(cur), "--json"]
    try:
        done = subprocess.run([sys.executable, "-c", _WRAPPER, str(timeout), *command], capture_output=True,
                              text=True, env=env, timeout=timeout + 60)
        run = json.loads(done.stdout)
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        run = {"seconds": float("nan"), "exit": None, "stdout": "", "stderr": str(exc), "maxrss_kb": 0}
    result = {"rows": rows, "seconds": round(run["seconds"], 2), "peak_rss_mb": round(run["maxrss_kb"] / 1024, 1),
              "input_mb": round((ref.stat().st_size + cur.stat().st_size) / 2 ** 20, 1), "exit": run["exit"]}
    try:
        report = json.loads(run["stdout"])
        result["mmd"] = (report.get("multivariate") or {}).get("evaluation")
        result["drifted"] = report.get("drifted")
    except json.JSONDecodeError:
        result["error"] = run["stderr"][-300:]
    for path in (ref, cur):
        path.unlink()
    return result


def false_alarms(reps: int, rows: int) -> dict:
    from faultlib.detect.data.drift import mmd_test

    rejected = 0
    for seed in range(reps):
        rng = np.random.default_rng(50_000 + seed)
        result = mmd_test(rng.standard_normal((rows, 10)), rng.standard_normal((rows, 10)), seed=seed)
        rejected += result.p_value <= 0.05
    p, z = rejected / reps, 1.96
    centre = (p + z * z / (2 * reps)) / (1 + z * z / reps)
    half = z * math.sqrt(p * (1 - p) / reps + z * z / (4 * reps * reps)) / (1 + z * z / reps)
    return {"reps": reps, "rows_per_sample": rows, "evaluation": result.evaluation, "rate": p,
            "wilson95": [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]}


def power(reps: int, rows: int) -> dict:
    """How often the MMD test (as ``check drift`` runs it: at most ``mmd_max_rows`` rows per table) rejects two
    changes no single column shows: a correlation of 0.05 between two of the 10 columns (marginals unchanged),
    and a 0.02 sd mean shift in one column."""
    from faultlib.detect.data.drift import mmd_test

    hits = {"correlation_0.05": 0, "mean_shift_0.02sd": 0}
    for seed in range(reps):
        rng = np.random.default_rng(90_000 + seed)
        x, y = rng.standard_normal((rows, 10)), rng.standard_normal((rows, 10))
        corr = y.copy()
        corr[:, 1] = 0.05 * corr[:, 0] + math.sqrt(1 - 0.05 ** 2) * corr[:, 1]
        hits["correlation_0.05"] += mmd_test(x, corr, seed=seed).p_value <= 0.05
        y[:, 0] += 0.02
        hits["mean_shift_0.02sd"] += mmd_test(x, y, seed=seed).p_value <= 0.05
    return {"reps": reps, "rows_per_sample": rows, **{k: v / reps for k, v in hits.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated row counts")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per size")
    parser.add_argument("--false-alarms", type=int, default=0, metavar="K")
    parser.add_argument("--fa-rows", type=int, default=50_000)
    parser.add_argument("--power", type=int, default=0, metavar="K", help="K data sets per alternative")
    parser.add_argument("--power-rows", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict = {"sizes": []}
    with tempfile.TemporaryDirectory(prefix="drift-scale-") as tmp:
        for rows in (int(v) for v in args.sizes.split(",") if v.strip()):
            result = measure(rows, Path(tmp), args.timeout)
            results["sizes"].append(result)
            if not args.json:
                print(f"{rows:>11,} x 10  {result['seconds']:8.2f} s  peak RSS {result['peak_rss_mb']:8.1f} MB  "
                      f"(input {result['input_mb']:.0f} MB)  mmd={result.get('mmd')}  exit={result['exit']}"
                      + (f"  error: {result['error']}" if "error" in result else ""), flush=True)
    if args.false_alarms:
        results["false_alarms"] = fa = false_alarms(args.false_alarms, args.fa_rows)
        if not args.json:
            print(f"asymptotic MMD false alarms: {fa['rate']:.1%} of {fa['reps']} (Wilson 95 % {fa['wilson95']}) "
                  f"at {fa['rows_per_sample']:,} rows per sample ({fa['evaluation']})")
    if args.power:
        results["power"] = pw = power(args.power, args.power_rows)
        if not args.json:
            print(f"asymptotic MMD power at {pw['rows_per_sample']:,} rows per sample ({pw['reps']} data sets): "
                  f"correlation 0.05 {pw['correlation_0.05']:.0%}, mean shift 0.02 sd {pw['mean_shift_0.02sd']:.0%}")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
