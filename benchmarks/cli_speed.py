"""What a user waits for: ``faultlib fingerprint``, ``faultlib check batching`` and ``faultlib check state-dict``
on the README's examples, as CPU-time ratios against baselines measured in the same run.

Usage (from the repository root)::

    python benchmarks/cli_speed.py [--repeats 3] [--json]

CPU time (user + system of the child process, ``resource.getrusage``) rather than wall time: on a shared
machine the wall time of the same command varies 2-5x with the load, its CPU time hardly. Each command runs
``--repeats`` times; the median is kept. Baselines, measured in the same run:

- ``torch_import``: ``python -c "import torch"``, the floor of any command that must import torch (loading a
  checkpoint, building the user's model or dataset). ``check batching`` and ``check state-dict`` are given as
  ratios to it: what faultlib and the example add on top of torch.
- ``fingerprint_cold``: ``faultlib fingerprint --out F`` with an empty cache (torch imported for its build
  configuration, as every call did before the cache); ``fingerprint_warm`` / ``fingerprint_cold`` is the gain.
- ``packages_email_parser``: the previous way to list distributions (``dist.metadata["Name"]`` and
  ``dist.version``: the e-mail parser over every METADATA, twice), in process, against
  :func:`faultlib.fingerprint.environment.packages` (one header read).

Goals (the script exits 1 when one is missed): fingerprint_warm / fingerprint_cold < 0.5; packages < 0.3 of
the e-mail parser; check batching < 1.5x and check state-dict < 1.5x the torch import.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOALS = {"fingerprint_warm/fingerprint_cold": 0.5, "packages/packages_email_parser": 0.3,
         "check_batching/torch_import": 1.5, "check_state_dict/torch_import": 1.5}


def cpu_of(argv: list[str], *, env: dict[str, str] | None = None, cwd: Path = REPO) -> tuple[float, float]:
    """``(cpu seconds, wall seconds)`` of one run of ``argv`` (its exit code is not judged: checks exit 1)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def in_process(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return statistics.median(times)


def packages_email_parser() -> dict[str, str]:
    from importlib import metadata

    from packaging.utils import canonicalize_name

    found: dict[str, str] = {}
    for dist in metadata.distributions():
        if dist.metadata["Name"] and dist.version:
            found.setdefault(canonicalize_name(dist.metadata["Name"]), dist.version)
    return dict(sorted(found.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="faultlib-cli-speed-"))
    subprocess.run([py, "cases/state_dict_mismatch/examples/make_checkpoints.py", str(work / "ckpts")], cwd=REPO,
                   check=True, stdout=subprocess.DEVNULL)
    examples = "cases/variable_length_batching/examples/seqs.py"
    commands = {
        "torch_import": [py, "-c", "import torch"],
        "check_batching": [py, "-m", "faultlib", "check", "batching", f"{examples}:DigitColumns", "--batch-size", "32",
                           "--shuffle-seed", "0"],
        "check_state_dict": [py, "-m", "faultlib", "check", "state-dict", str(work / "ckpts" / "wrapped.pt"), "--model",
                             "cases/state_dict_mismatch/model.py:build"],
    }
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in [*commands, "fingerprint_cold",
                                                                          "fingerprint_warm"]}
    for i in range(args.repeats):  # interleaved: a change of load hits every command alike
        for name, command in commands.items():
            samples[name].append(cpu_of(command))
        cache = work / f"cache{i}"
        env = {**os.environ, "FAULTLIB_CACHE_DIR": str(cache)}
        out = ["fingerprint", "--out", str(work / "fp.json")]
        samples["fingerprint_cold"].append(cpu_of([py, "-m", "faultlib", *out], env=env))
        samples["fingerprint_warm"].append(cpu_of([py, "-m", "faultlib", *out], env=env))
    cpu = {name: statistics.median(c for c, _ in runs) for name, runs in samples.items()}
    wall = {name: statistics.median(w for _, w in runs) for name, runs in samples.items()}
    from faultlib.fingerprint.environment import packages

    cpu["packages"] = in_process(packages, args.repeats)
    cpu["packages_email_parser"] = in_process(packages_email_parser, args.repeats)
    assert packages() == packages_email_parser(), "the header read must give the e-mail parser's result"
    ratios = {key: cpu[key.split("/")[0]] / cpu[key.split("/")[1]] for key in GOALS}
    met = {key: ratios[key] < goal for key, goal in GOALS.items()}
    load = os.getloadavg()[0]
    if args.json:
        print(json.dumps({"cpu_s": cpu, "wall_s": wall, "ratios": ratios, "goals": GOALS, "met": met,
                          "meta": {"repeats": args.repeats, "load1": load, "cpus": os.cpu_count()}}, indent=2))
    else:
        print(f"median over {args.repeats} run(s); load average {load:.1f} on {os.cpu_count()} CPUs")
        for name in cpu:
            extra = f"  wall {wall[name]:6.2f} s" if name in wall else "  (in process)"
            print(f"  {name:<22} cpu {cpu[name]:6.3f} s{extra}")
        for key, goal in GOALS.items():
            print(f"  {key:<36} {ratios[key]:5.2f}  (goal < {goal}: {'met' if met[key] else 'MISSED'})")
    return 0 if all(met.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
