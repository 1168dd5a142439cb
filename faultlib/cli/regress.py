"""``faultlib regress``: run the catalog (or one shard of it), with a live table, JUnit XML and an HTML report.

Nothing runs before the plan is made and checked: the catalog is loaded (an invalid case is kept
and reported as a failure of that case), the shard and the backend options are validated, the
output files' directories are created and found writable, and the archive is checked once
(unreachable: exit 3; unusable: exit 2). Then each case runs in its own worker process
(:mod:`faultlib.regress.pool`), ``--jobs`` at a time. Evidence already written is never removed:
on Ctrl-C or SIGTERM every running case is finished with verdict ``error`` and its evidence kept,
the JUnit XML and the report are still written for what ran, and the exit code is 128 + the signal.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from faultlib.cli.params import SEED, TIMEOUT_S, world_workload_option
from faultlib.cli.root import CASE_DIR, DEFAULT_CASES
from faultlib.console import emit_json, state, stderr, stdout
from faultlib.outputs import output_file
from faultlib.regress.plan import Shard
from faultlib.regress.results import CaseResult, RegressListener, RegressResult

_STYLE = {"passed": "bold green", "failed": "bold red", "invalid": "bold red", "error": "bold red",
          "interrupted": "bold red", "skipped": "dim", "unavailable": "bold yellow", "not_run": "yellow"}


class ShardParam(click.ParamType):
    """``I/N``: shard I (from 0) of N."""

    name = "I/N"

    def convert(self, value, param, ctx) -> Shard:
        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _assertion_counts(counts: dict[str, int]) -> str:
    """``9 passed, 1 skipped of 10 assertions``: every count said (``9/10 passed`` read as one failure)."""
    said = [f"{counts[k]} {k}" for k in ("passed", "failed", "skipped") if counts[k] or k == "passed"]
    return f"{', '.join(said)} of {sum(counts.values())} assertions"


class RegressProgress(RegressListener):
    """A live table of every case (state, elapsed time, verdict) on a terminal; one line per
    started and finished case otherwise. Every text from a case reaches rich as :class:`Text`."""

    def __init__(self, console: Console):
        self.console = console
        self.order: list[str] = []
        self.rows: dict[str, dict] = {}
        self.live: Live | None = None
        self.done = 0

    def planned(self, cases: list[str]) -> None:
        self.order = list(cases)
        self.rows = {c: {"state": "queued", "started": None, "result": None} for c in cases}
        if self.console.is_terminal:
            self.live = Live(console=self.console, get_renderable=self._table, refresh_per_second=4,
                             transient=False, vertical_overflow="visible")
            self.live.start()
        else:
            self.console.print(Text(f"regress: {len(cases)} case(s)"))

    def _visible(self) -> list[str]:
        """Every case when the table fits the terminal; else the running ones and the latest finished."""
        room = max(5, self.console.height - 4)
        if len(self.order) <= room:
            return self.order
        running = [c for c in self.order if self.rows[c]["started"] and not self.rows[c]["result"]]
        finished = [c for c in self.order if self.rows[c]["result"]]
        return running + finished[-max(0, room - len(running) - 1):]

    def _table(self) -> Table:
        table = Table(show_edge=False, expand=False)
        for column in ("case", "state", "elapsed", "verdict"):
            table.add_column(column, no_wrap=True)
        now = time.monotonic()
        for case_id in self._visible():
            row = self.rows[case_id]
            result: CaseResult | None = row["result"]
            if result is not None:
                elapsed, verdict = f"{result.duration_s:.1f} s", result.verdict.value
            else:
                elapsed = f"{now - row['started']:.1f} s" if row["started"] else ""
                verdict = ""
            table.add_row(Text(case_id), Text(row["state"]), elapsed, Text(verdict, _STYLE.get(verdict, "")))
        hidden = len(self.order) - len(self._visible())
        if hidden:
            queued = sum(1 for c in self.order if not self.rows[c]["started"] and not self.rows[c]["result"])
            table.add_row(Text(f"... {hidden} more ({queued} queued)", "dim"), "", "", "")
        return table

    def case_started(self, case_id: str) -> None:
        self.rows[case_id].update(state="starting", started=time.monotonic())
        if self.live is None:
            self.console.print(Text(f"{case_id}: started"), highlight=False)

    def case_state(self, case_id: str, state: str) -> None:
        self.rows[case_id]["state"] = state

    def case_finished(self, result: CaseResult) -> None:
        self.done += 1
        self.rows[result.id].update(state="done", result=result)
        if self.live is None:
            counts = result.counts()
            self.console.print(Text.assemble(
                f"[{self.done}/{len(self.order)}] {result.id}: ", (result.verdict.value.upper(),
                                                                  _STYLE.get(result.verdict.value, "")),
                f" in {result.duration_s:.1f} s ({_assertion_counts(counts)})"),
                highlight=False)

    def close(self) -> None:
        if self.live is not None:
            self.live.refresh()
            self.live.stop()
            self.live = None


def print_summary(console: Console, result: RegressResult, written: list[str]) -> None:
    """The cases, their verdicts and assertion counts (a table that fits 80 columns), then, below it, each
    case that did not pass with its reason and each failed assertion (id, the test of test_case.py that
    checks it, the first line of its message) and where its evidence is; the totals and the files written."""
    from faultlib.text import first_line

    table = Table(show_edge=False)
    table.add_column("case", overflow="fold")
    table.add_column("verdict", no_wrap=True)
    for column in ("time (s)", "passed", "failed", "skipped"):
        table.add_column(column, justify="right", no_wrap=True)
    for case in result.cases:
        counts = case.counts()
        table.add_row(Text(case.id), Text(case.verdict.value, _STYLE.get(case.verdict.value, "")),
                      f"{case.duration_s:.1f}", str(counts["passed"]), str(counts["failed"]), str(counts["skipped"]))
    console.print(table)
    for case in result.cases:
        if case.verdict.value == "passed":
            continue
        reason = first_line(case.error, 500) if case.error else ""
        console.print(Text.assemble((case.id, "bold"), ": ", (case.verdict.value, _STYLE.get(case.verdict.value, "")),
                                    f": {reason}" if reason else ""), highlight=False)
        for failure in case.failures():
            if failure["message"] == reason:
                continue  # the case's reason, said once above
            test = f" (test_case.py::{failure['test']})" if failure["test"] else ""
            console.print(Text(f"  {failure['id']}{test}"), highlight=False)
            console.print(Text(f"    {failure['message']}"), highlight=False)
        where = case.archive_uri or case.run_dir
        if where:
            console.print(Text(f"  evidence: {where}"), highlight=False)
    totals = result.totals()
    console.print(Text(f"shard {result.shard}: {len(result.cases)} case(s) of {result.selected}: {totals['passed']} "
                       f"passed, {totals['failed']} failed, {totals['errors']} errors, {totals['skipped']} skipped"))
    for line in written:
        console.print(Text(line), highlight=False)


@click.command("regress")
@click.argument("cases_dir", type=CASE_DIR, default=DEFAULT_CASES)
@click.option("--fault-class", metavar="PREFIX", default=None, help="Only cases whose fault class starts with PREFIX.")
@click.option("--shard", type=ShardParam(), default="0/1", show_default=True,
              help="Run shard I of N (numbered from 0): cases sorted by id, every N-th from the I-th.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Cases run at once (local and kubernetes; compose runs one at a time).")
@click.option("--backend", type=click.Choice(["local", "compose", "kubernetes"]), default="local", show_default=True,
              help="Where each case's phases run.")
@click.option("--archive", metavar="URI", default=None,
              help="file://DIR or s3://BUCKET/PREFIX (default file://.faultlib/runs); checked once before any case runs.")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path, dir_okay=False), default=None, metavar="FILE",
              help="Write JUnit XML: one testcase per assertion, named CASE::ASSERTION.")
@click.option("--report", "report_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              metavar="FILE.html", help="Write a self-contained HTML report (charts, findings, evidence links).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout (progress stays on stderr).")
@click.option("--no-control", is_flag=True, help="Skip every case's control run.")
@click.option("--prometheus", is_flag=True,
              help="Evaluate each case's PromQL with a real Prometheus over its run's metrics (promql.json; "
                   "needs promtool and prometheus: apt-get install -y --no-install-recommends prometheus; "
                   "exit 3 before any case when they are missing).")
@click.option("--seed", type=SEED, default=None, help="Override every case's repro.seed.")
@click.option("--timeout", type=TIMEOUT_S, default=None, metavar="SECONDS",
              help="Per-phase timeout for every case (default: each case's repro.timeout_s).")
@click.option("--image", metavar="IMAGE", default=None, help="compose, kubernetes: the repro image.")
@click.option("--namespace", metavar="NS", default=None, help="kubernetes only: namespace of the runs' objects.")
@click.option("--crd-dir", type=click.Path(path_type=Path), default=None,
              help="kubernetes only: Chaos Mesh CRD manifests to validate the chaos objects against.")
@click.option("--storage-class", metavar="CLASS", default=None, help="kubernetes only: StorageClass of run volumes.")
@click.option("--volume-size", metavar="SIZE", default=None, help="kubernetes only: size of each run's volume.")
@world_workload_option
def regress(cases_dir: Path, fault_class: str | None, shard: Shard, jobs: int, backend: str, archive: str | None,
            junit_path: Path | None, report_path: Path | None, as_json: bool, no_control: bool, prometheus: bool,
            seed: int | None, timeout: float | None, image: str | None, namespace: str | None, crd_dir: Path | None,
            storage_class: str | None, volume_size: str | None, world_workload: str | None) -> int:
    """Run every case of the catalog (default ./cases): control and faulted run, assertions, evidence.

    Exit code 0 when every case passed (or was skipped: a device this machine lacks), 1 when a case
    failed, was invalid or errored, 2 for bad usage (before anything runs), 3 when the archive or the
    backend could not be reached (checked before the first case; cases not started are reported).
    """
    from faultlib.archive import open_archive
    from faultlib.backends import get_backend
    from faultlib.regress import junit, report
    from faultlib.regress.plan import plan
    from faultlib.regress.pool import Pool, RunOptions, effective_jobs

    state["json"] = as_json
    state["writes_evidence"] = True  # an interrupted run keeps what it wrote (said on Ctrl-C or SIGTERM)
    junit_out = output_file(junit_path, "--junit", parents=True, reads=(cases_dir,)) if junit_path else None
    report_out = output_file(report_path, "--report", parents=True, reads=(cases_dir,)) if report_path else None
    options = {"image": image, "namespace": namespace, "crd_dir": crd_dir, "storage_class": storage_class,
               "volume_size": volume_size, "world_workload": world_workload}
    get_backend(backend, archive=archive, **options)  # unknown or misapplied options: exit 2 before anything runs
    selection = plan(cases_dir, fault_class=fault_class, shard=shard)
    open_archive(archive).preflight()  # once, before any case: unreachable is exit 3, unusable exit 2
    if prometheus:
        from faultlib.observability.prometheus import require_binaries

        require_binaries()  # exit 3 before the first case
    if jobs > effective_jobs(backend, jobs):
        stderr.print(f"note: --backend {backend} runs one case at a time (its topology publishes fixed host "
                     "ports); --jobs ignored", markup=False, highlight=False)
    if not selection.cases:
        stderr.print(f"note: shard {shard} holds none of the {selection.selected} selected case(s)", markup=False)
    progress = RegressProgress(stderr)
    run_options = RunOptions(archive=archive, backend=backend, backend_options=options, control=not no_control,
                             seed=seed, timeout_s=timeout, report=report_path is not None, prometheus=prometheus)
    try:
        result = Pool(selection, run_options, jobs=jobs, listener=progress).run()
    finally:
        progress.close()
    written = []
    if junit_out is not None:
        written.append(f"junit: {junit.write(junit_out, result)}")
    if report_out is not None:
        written.append(f"report: {report.write(report_out, result)}")
    if as_json:
        emit_json(result.to_json())
        for line in written:
            stderr.print(Text(line), highlight=False)
    else:
        print_summary(stdout, result, written)
    if result.interrupted:
        raise KeyboardInterrupt  # the CLI reports it and exits 128 + the signal, as `faultlib run` does
    return result.exit_code
