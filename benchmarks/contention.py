"""Verdicts of the timing-sensitive cases under CPU contention: they must not depend on the machine's load.

A case whose assertions involve time (latencies, deadlines, stalls) must give the same verdict on a
busy CI runner as on an idle one, and its assertions must keep discriminating there: with the case's
mitigation switched off it must still fail. For each case this runs ``faultlib run`` (each run in its
own temporary archive):

======================  =====================================  ======================================
run                     how                                    required verdict
======================  =====================================  ======================================
idle                    nothing else started                   ``passed``
idle --no-control       nothing else started, no control run   ``passed``
load                    ``--load`` CPU-bound busy loops        the same as ``idle``
load --no-control       the same, no control run               the same as ``idle --no-control``
load mitigation off     the same, ``repro.params.``            ``failed``
                        ``apply_mitigation: false`` in a copy
                        of the case
load mitigation off,    the same, no control run               ``failed``
--no-control
======================  =====================================  ======================================

The busy loops are ``python -c "while True: pass"`` processes (default 4 per core: 8 on 2 cores, a
load of about 10, where the flakiness of issue 23 showed; at 6 it did not), started by this script, each killed by
its PID when the loaded runs end, also on Ctrl-C or SIGTERM, and given ``PR_SET_PDEATHSIG`` so that
they die with this script even if it is killed with SIGKILL.

Which cases: every case under ``--cases`` whose ``repro.params`` has the documented switch
``apply_mitigation`` (true by default; the case's repro honours false by leaving the fault's mitigation
out: see docs/writing-a-case.md, "Assertions about time"), or those named with ``--case``.

The table has one row per case and run: verdict, what it had to be, whether it matched, the failed
and the inconclusive (skipped) assertions, and the run's duration. Exit code 0 when every verdict
matched, 1 otherwise, 2 on bad usage. The load slows every process on the machine: run one case at
a time on a shared machine (``--case NAME``).

Usage: ``python benchmarks/contention.py [--case NAME ...] [--load N] [--cases DIR] [--keep DIR] [--json]``
(about 4-7 minutes per case on 2 cores: two idle and four loaded runs). ``--only`` picks a subset
of the runs (e.g. ``--only load,load-mitigation-off``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from faultlib.processes.tree import pdeathsig_preexec

REPO = Path(__file__).resolve().parents[1]
SWITCH = "apply_mitigation"
BUSY_LOOP = "while True: pass"


@dataclass(frozen=True)
class Mode:
    """One way of running a case: under load or not, with the control or not, the mitigation on or off."""

    name: str
    load: bool
    control: bool
    mitigation: bool

    def expected(self, verdicts: dict[str, str]) -> str:
        """The verdict this run must give: ``failed`` without the mitigation; ``passed`` idle; under load,
        the idle run's verdict (``passed`` when it was not run)."""
        if not self.mitigation:
            return "failed"
        if not self.load:
            return "passed"
        return verdicts.get("idle" if self.control else "idle-no-control", "passed")


MODES = (
    Mode("idle", load=False, control=True, mitigation=True),
    Mode("idle-no-control", load=False, control=False, mitigation=True),
    Mode("load", load=True, control=True, mitigation=True),
    Mode("load-no-control", load=True, control=False, mitigation=True),
    Mode("load-mitigation-off", load=True, control=True, mitigation=False),
    Mode("load-mitigation-off-no-control", load=True, control=False, mitigation=False),
)


@dataclass
class Result:
    case: str
    mode: str
    verdict: str
    expected: str
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    load_avg: float = 0.0

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected

    def to_json(self) -> dict:
        return {"case": self.case, "mode": self.mode, "verdict": self.verdict, "expected": self.expected,
                "ok": self.ok, "failed": self.failed, "skipped": self.skipped,
                "duration_s": round(self.duration_s, 1), "load_avg_1m": round(self.load_avg, 2)}


class BusyLoops:
    """``count`` CPU-bound processes, started on entering, each killed by its PID on leaving (whatever
    ends the block: a normal end, an exception, Ctrl-C). They also die with this process
    (``PR_SET_PDEATHSIG``)."""

    def __init__(self, count: int, settle_s: float = 2.0):
        self.count, self.settle_s = count, settle_s
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "BusyLoops":
        try:
            for _ in range(self.count):
                self.procs.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL,
                                                   preexec_fn=pdeathsig_preexec()))
        except BaseException:
            self.stop()
            raise
        time.sleep(self.settle_s)  # let the load settle before the run starts
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait()
        self.procs.clear()


def switchable_cases(cases_dir: Path) -> list[str]:
    """Names of the cases under ``cases_dir`` whose ``repro.params`` has the ``apply_mitigation`` switch."""
    names = []
    for case_yaml in sorted(cases_dir.glob("*/case.yaml")):
        params = ((yaml.safe_load(case_yaml.read_text()) or {}).get("repro") or {}).get("params") or {}
        if SWITCH in params:
            names.append(case_yaml.parent.name)
    return names


def without_mitigation(case_dir: Path, workdir: Path) -> Path:
    """A copy of ``case_dir`` under ``workdir`` (same directory name: the id must match it) whose
    case.yaml sets ``repro.params.apply_mitigation: false``."""
    copy = workdir / "cases" / case_dir.name
    shutil.copytree(case_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
    doc = yaml.safe_load((copy / "case.yaml").read_text())
    doc["repro"]["params"][SWITCH] = False
    (copy / "case.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return copy


def run_case(case_dir: Path, mode: Mode, workdir: Path, timeout_s: float) -> dict:
    """``faultlib run`` the case once in ``mode`` into its own archive; returns the run record (or an
    ``error`` record when the command gave none)."""
    archive = workdir / f"runs-{mode.name}"
    argv = [sys.executable, "-m", "faultlib", "run", str(case_dir), "--json", "--archive", f"file://{archive}"]
    if not mode.control:
        argv.append("--no-control")
    env = {**os.environ, "NO_COLOR": "1"}
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"verdict": "error", "error": f"faultlib run did not finish in {timeout_s:g} s"}
    try:
        record = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"verdict": "error", "error": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}
    return record


def measure(case: str, cases_dir: Path, modes: list[Mode], load: int, timeout_s: float,
            progress, keep: Path | None = None) -> list[Result]:
    results: list[Result] = []
    verdicts: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="faultlib-contention-") as tmp:
        workdir = Path(tmp) if keep is None else Path(tempfile.mkdtemp(prefix=f"{case}-", dir=keep))
        for mode in modes:
            case_dir = cases_dir / case if mode.mitigation else without_mitigation(cases_dir / case, workdir / mode.name)
            progress(f"{case}: {mode.name} ...")
            started = time.monotonic()
            if mode.load:
                with BusyLoops(load):
                    record = run_case(case_dir, mode, workdir, timeout_s)
                    load_avg = os.getloadavg()[0]
            else:
                record = run_case(case_dir, mode, workdir, timeout_s)
                load_avg = os.getloadavg()[0]
            assertions = record.get("assertions") or {}
            verdicts[mode.name] = record.get("verdict", "error")
            result = Result(case, mode.name, verdicts[mode.name], mode.expected(verdicts),
                            failed=_ids(assertions.get("failed")), skipped=_ids(assertions.get("skipped")),
                            duration_s=time.monotonic() - started, load_avg=load_avg)
            results.append(result)
            progress(f"{case}: {mode.name}: {result.verdict} ({result.duration_s:.0f} s, load {load_avg:.1f})"
                     + ("" if result.ok else f", expected {result.expected}")
                     + (f"; error: {record['error']}" if record.get("error") else ""))
    return results


def _ids(items) -> list[str]:
    """Assertion ids from the record's list (plain ids, or objects with an ``id``)."""
    return [item["id"] if isinstance(item, dict) else str(item) for item in items or []]


def table(results: list[Result]) -> str:
    """An 80-column table: one row per run, the assertions that failed or were skipped on their own lines."""
    lines = [f"{'case':<22} {'run':<30} {'verdict':<8} {'expected':<8} {'ok':<3} {'s':>5}", "-" * 80]
    for r in results:
        lines.append(f"{r.case[:22]:<22} {r.mode[:30]:<30} {r.verdict:<8} {r.expected:<8} "
                     f"{'yes' if r.ok else 'NO':<3} {r.duration_s:>5.0f}")
        for label, ids in (("failed", r.failed), ("skipped", r.skipped)):
            if ids:
                lines += textwrap.wrap(f"{label}: {', '.join(ids)}", 80, initial_indent="    ",
                                       subsequent_indent="      ", break_on_hyphens=False)
    matched = sum(r.ok for r in results)
    lines.append(f"{matched} of {len(results)} runs gave the verdict they had to")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=REPO / "cases", help="catalog directory (default: cases/)")
    parser.add_argument("--case", action="append", default=[],
                        help="a case to run (repeatable; default: every case with the mitigation switch)")
    parser.add_argument("--load", type=int, default=4 * (os.cpu_count() or 2),
                        help="CPU-bound busy loops during the loaded runs (default: 4 per core, 8 on 2 cores)")
    parser.add_argument("--only", default="", help=f"comma-separated runs among {', '.join(m.name for m in MODES)}")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per faultlib run (default 900)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="keep each run's evidence under DIR (default: a temporary directory, removed)")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object on stdout")
    args = parser.parse_args(argv)
    if args.load < 1:
        parser.error("--load must be at least 1")
    if args.keep is not None and not args.keep.is_dir():
        parser.error(f"--keep: {args.keep} is not a directory")
    names = {m.name: m for m in MODES}
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in names]
    if unknown:
        parser.error(f"--only: unknown run(s) {', '.join(unknown)}; choose among {', '.join(names)}")
    modes = [names[s] for s in chosen] if chosen else list(MODES)
    cases = args.case or switchable_cases(args.cases)
    missing = [c for c in cases if not (args.cases / c / "case.yaml").is_file()]
    if missing:
        parser.error(f"no case {', '.join(missing)} under {args.cases}")
    without_switch = [c for c in cases if c not in switchable_cases(args.cases)]
    if without_switch and any(not m.mitigation for m in modes):
        parser.error(f"{', '.join(without_switch)}: no repro.params.{SWITCH} switch; cannot switch the mitigation off")

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    results: list[Result] = []
    try:
        for case in cases:
            results += measure(case, args.cases, modes, args.load, args.timeout, progress, args.keep)
    except KeyboardInterrupt:
        progress("interrupted: the busy loops are stopped")
        return 130
    if args.json:
        print(json.dumps({"load": args.load, "cpus": os.cpu_count(), "results": [r.to_json() for r in results],
                          "ok": all(r.ok for r in results)}, indent=2))
    else:
        print(table(results))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM ends the busy loops as Ctrl-C does
    sys.exit(main())
