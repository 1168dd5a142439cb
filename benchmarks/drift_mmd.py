"""Cost and power of faultlib's MMD test against a plain O(n^2) permutation test, in the same run.

Data: two samples of 10,000 x 32 (standard normal; the alternative shifts the mean of 4 of the 32
columns), the RBF kernel with the median-heuristic bandwidth, 500 permutations, p <= 0.05.

Contenders, all the same biased squared-MMD permutation test unless said otherwise:

* ``plain``: the textbook test: the 20,000 x 20,000 kernel matrix once (float32, 1.6 GB), then for
  every permutation the three blocks ``K[a][:, a]``, ``K[b][:, b]``, ``K[a][:, b]`` gathered and summed,
  O(N^2) memory traffic per permutation. Its kernel build is timed in full; its per-permutation cost
  is the slope of a timed run of ``--plain-permutations`` (default 4 and 12) permutations, so the
  500-permutation time is ``build + 500 * slope`` (a full run would take ~25 minutes here).
* ``exact``: :func:`faultlib.detect.data.drift.mmd_test` with ``method="exact"``: the same kernel matrix
  (float64), all permutations evaluated as ``diag(S' K S)`` with BLAS. Identical statistic and
  permutations to ``plain`` (the script checks the observed statistics agree), so identical power.
* ``rff`` (the default above 2,048 rows): random Fourier features, 512 frequency pairs, no kernel
  matrix; the permutation test is exact in level for its own kernel, power measured below.
* ``alibi-detect`` ``MMDDrift(backend="pytorch")`` when importable (here, or through
  ``--alibi-python`` naming another interpreter): the same plain approach (full kernel matrix, one
  full gather per permutation, unbiased MMD^2), timed like ``plain`` from two small permutation counts.

Power: the fraction of ``--power-reps`` paired data sets (same data for every contender) in which
the test rejects at p <= 0.05, at 10,000 x 32 (mean shift ``--shift``, default 0.03 on 4 columns)
and, for a tighter estimate, at 2,000 x 32 (shift scaled by sqrt(5)) with ``--small-reps`` data sets.
Usage: ``python benchmarks/drift_mmd.py [--quick] [--json] [--alibi-python PATH]``. Always exits 0.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
import time

import numpy as np

from faultlib.detect.data.drift import mmd_test
from faultlib.detect.data.drift.mmd import median_bandwidth

ALPHA = 0.05
SHIFTED = 4


def data(n: int, d: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    y[:, :SHIFTED] += shift
    return x, y


def plain_kernel(pooled: np.ndarray, sigma: float) -> np.ndarray:
    z = pooled.astype(np.float32)
    sq = np.sum(z * z, axis=1)
    k = z @ z.T
    k *= -2.0
    k += sq[:, None]
    k += sq[None, :]
    np.maximum(k, 0.0, out=k)
    k *= np.float32(-1.0 / (2.0 * sigma * sigma))
    return np.exp(k, out=k)


def plain_statistic(k: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Biased MMD^2 from gathered blocks: mean K[a,a] + mean K[b,b] - 2 mean K[a,b]."""
    return float(k[np.ix_(a, a)].mean(dtype=np.float64) + k[np.ix_(b, b)].mean(dtype=np.float64)
                 - 2.0 * k[np.ix_(a, b)].mean(dtype=np.float64))


def time_plain(x: np.ndarray, y: np.ndarray, counts: tuple[int, int], permutations: int) -> dict:
    pooled = np.concatenate([x, y])
    n = len(x)
    sigma = median_bandwidth(pooled, np.random.default_rng(0))
    start = time.perf_counter()
    k = plain_kernel(pooled, sigma)
    build = time.perf_counter() - start
    observed = plain_statistic(k, np.arange(n), np.arange(n, len(pooled)))
    rng = np.random.default_rng(1)
    runs = []
    for count in counts:
        start = time.perf_counter()
        for _ in range(count):
            perm = rng.permutation(len(pooled))
            plain_statistic(k, perm[:n], perm[n:])
        runs.append(time.perf_counter() - start)
    del k
    per_permutation = (runs[1] - runs[0]) / (counts[1] - counts[0])
    per_permutation = per_permutation if per_permutation > 0 else runs[1] / counts[1]
    return {"build_s": build, "per_permutation_s": per_permutation, "observed": observed, "sigma": sigma,
            "total_s": build + permutations * per_permutation, "measured_permutations": list(counts)}


ALIBI = textwrap.dedent("""
    import json, sys, time
    import numpy as np, torch
    from alibi_detect.cd import MMDDrift
    n, d, shift, counts = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, d)).astype(np.float32)
    y[:, :4] += shift
    out = {"version": __import__("alibi_detect").__version__, "runs": []}
    for count in counts:
        cd = MMDDrift(x, backend="pytorch", p_val=0.05, n_permutations=count, device="cpu")
        start = time.perf_counter()
        pred = cd.predict(y)
        out["runs"].append([count, time.perf_counter() - start, float(pred["data"]["p_val"])])
    print(json.dumps(out))
""")


def time_alibi(python: str | None, n: int, d: int, counts: tuple[int, int], permutations: int) -> dict:
    try:
        import alibi_detect  # noqa: F401
        python = python or sys.executable
    except ImportError:
        if not python:
            return {"skipped": "alibi-detect is not installed in this interpreter (pip install alibi-detect, or "
                               "--alibi-python PATH naming an interpreter that has it)"}
    if shutil.which(python) is None and not os.path.exists(python):
        return {"skipped": f"--alibi-python {python} not found"}
    proc = subprocess.run([python, "-c", ALIBI, str(n), str(d), "0.0", json.dumps(list(counts))],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        return {"skipped": f"alibi-detect failed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode}"}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    (c0, t0, _), (c1, t1, _) = result["runs"]
    per_permutation = max((t1 - t0) / (c1 - c0), 0.0)
    build = max(t0 - c0 * per_permutation, 0.0)
    return {"version": result["version"], "build_s": build, "per_permutation_s": per_permutation,
            "total_s": build + permutations * per_permutation, "runs": result["runs"]}


def timed(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def power(n: int, d: int, shift: float, reps: int, permutations: int) -> dict:
    """Paired power: every contender judges the same ``reps`` data sets (seed = rep)."""
    hits = {"exact": 0, "rff": 0}
    agree = 0
    seconds = {"exact": 0.0, "rff": 0.0}
    for rep in range(reps):
        x, y = data(n, d, shift, 1000 + rep)
        verdict = {}
        for method in hits:
            start = time.perf_counter()
            result = mmd_test(x, y, permutations=permutations, method=method, seed=rep)
            seconds[method] += time.perf_counter() - start
            verdict[method] = result.p_value <= ALPHA
            hits[method] += verdict[method]
        agree += verdict["exact"] == verdict["rff"]
    return {"n": n, "d": d, "shift": shift, "reps": reps,
            "power": {m: hits[m] / reps for m in hits}, "agreement": agree / reps,
            "mean_s": {m: seconds[m] / reps for m in seconds}}


def run(args) -> dict:
    n, d, permutations = args.n, args.d, args.permutations
    x, y = data(n, d, 0.0, 0)
    out: dict = {"n": n, "d": d, "permutations": permutations, "threads": os.environ.get("OPENBLAS_NUM_THREADS")}
    mmd_test(x[:500], y[:500], permutations=permutations, method="rff", seed=0)  # warm up BLAS and scipy
    rff_s, rff = timed(lambda: mmd_test(x, y, permutations=permutations, seed=0), args.repeats)
    out["rff"] = {"total_s": rff_s, "p_value": rff.p_value, "features": rff.features, "evaluation": rff.evaluation}
    exact_s, exact = timed(lambda: mmd_test(x, y, permutations=permutations, method="exact", seed=0), 1)
    out["exact"] = {"total_s": exact_s, "p_value": exact.p_value, "observed": exact.statistic}
    out["plain"] = time_plain(x, y, tuple(args.plain_permutations), permutations)
    out["plain"]["matches_exact"] = math.isclose(out["plain"]["observed"], exact.statistic, rel_tol=1e-2)
    out["alibi"] = time_alibi(args.alibi_python, n, d, tuple(args.plain_permutations), permutations)
    out["power_large"] = power(n, d, args.shift, args.power_reps, permutations)
    out["power_small"] = power(n // 5, d, args.shift * math.sqrt(5), args.small_reps, permutations)
    return out


def report(r: dict) -> None:
    p = r["permutations"]
    print(f"MMD permutation test, {r['n']:,} x {r['d']} per sample, {p} permutations (seconds, this machine)\n")
    print("| test | kernel / features | per permutation | total | ratio vs ours (rff) |")
    print("|---|---|---|---|---|")
    ours = r["rff"]["total_s"]
    plain = r["plain"]
    print(f"| plain O(n^2) (numpy, gathers) | {plain['build_s']:.1f} s | {plain['per_permutation_s']:.2f} s | "
          f"{plain['total_s']:.0f} s (extrapolated from {plain['measured_permutations']}) | "
          f"{plain['total_s'] / ours:.0f}x |")
    alibi = r["alibi"]
    if "skipped" in alibi:
        print(f"| alibi-detect MMDDrift | skipped: {alibi['skipped']} | | | |")
    else:
        print(f"| alibi-detect {alibi['version']} MMDDrift (pytorch) | {alibi['build_s']:.1f} s | "
              f"{alibi['per_permutation_s']:.2f} s | {alibi['total_s']:.0f} s (extrapolated from "
              f"{[c for c, _, _ in alibi['runs']]}) | {alibi['total_s'] / ours:.0f}x |")
    print(f"| faultlib exact (kernel once, diag(S'KS)) | | | {r['exact']['total_s']:.1f} s | "
          f"{r['exact']['total_s'] / ours:.1f}x |")
    print(f"| faultlib rff ({r['rff']['features']} features, default) | | | {ours:.2f} s | 1x |")
    print(f"\nplain's observed MMD^2 matches faultlib exact's: {plain['matches_exact']} "
          f"({plain['observed']:.6g} vs {r['exact']['observed']:.6g})")
    for key in ("power_large", "power_small"):
        pw = r[key]
        print(f"power at {pw['n']:,} x {pw['d']}, mean shift {pw['shift']:.3g} on {SHIFTED} columns, "
              f"{pw['reps']} paired data sets: exact (= plain) {pw['power']['exact']:.2f}, "
              f"rff {pw['power']['rff']:.2f}, same verdict in {pw['agreement']:.0%} "
              f"(mean time exact {pw['mean_s']['exact']:.2f} s, rff {pw['mean_s']['rff']:.2f} s)")
    print(f"\ngoal >= 10x cheaper than plain at equal power: "
          f"{'met' if plain['total_s'] / ours >= 10 else 'MISSED'} ({plain['total_s'] / ours:.0f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--d", type=int, default=32)
    parser.add_argument("--permutations", type=int, default=500)
    parser.add_argument("--plain-permutations", type=int, nargs=2, default=[4, 12])
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats of the rff test (median)")
    parser.add_argument("--shift", type=float, default=0.03)
    parser.add_argument("--power-reps", type=int, default=10, help="paired data sets at n (exact costs ~30 s each)")
    parser.add_argument("--small-reps", type=int, default=100, help="paired data sets at n / 5")
    parser.add_argument("--alibi-python", default=os.environ.get("FAULTLIB_ALIBI_PYTHON"),
                        help="interpreter with alibi-detect installed (default: this one, if it has it)")
    parser.add_argument("--quick", action="store_true", help="2,000 x 32, few repetitions: a smoke run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.n, args.power_reps, args.small_reps, args.repeats = 2000, 4, 10, 1
        args.shift *= math.sqrt(5)
    result = run(args)
    print(json.dumps(result, indent=2) if args.json else "", end="")
    if not args.json:
        report(result)


if __name__ == "__main__":
    main()
