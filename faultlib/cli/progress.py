"""Human output of ``faultlib run``: a live progress display (stderr) and the final summary (with
``--prometheus``, a sparkline per PromQL query and phase: :mod:`faultlib.observability.sparkline`).

Every string that comes from a user or a repro (case titles, ids, paths, messages, exception texts)
reaches rich as :class:`rich.text.Text`, never as markup: a title containing ``[/]`` prints as is.
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from faultlib.events import RunListener
from faultlib.record import PhaseResult, RunRecord
from faultlib.text import printable

_STATUS_STYLE = {"ok": "green", "crashed": "red", "timeout": "red", "skipped": "dim", "interrupted": "red"}
_VERDICT_STYLE = {"passed": "bold green", "failed": "bold red", "error": "bold red"}


class RichProgress(RunListener):
    """Live phases and training steps on a terminal; one line per phase otherwise."""

    def __init__(self, console: Console):
        self.console = console
        self.live = console.is_terminal
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=False)
        self.tasks: dict[str, int] = {}

    def case_loaded(self, case) -> None:
        self.console.print(Text.assemble((case.id, "bold"), f" {case.version} ({case.fault_class}): {case.title}"))

    def run_started(self, run_id: str, run_dir: str) -> None:
        self.console.print(Text(f"run {run_id} -> {run_dir}"), highlight=False)
        if self.live:
            self.progress.start()

    def phase_started(self, phase: str, faults: list[str]) -> None:
        label = Text.assemble(f"{phase:<8} ", (f"faults: {', '.join(dict.fromkeys(faults))}", "yellow") if faults
                              else ("no fault", "dim")).markup  # escaped: Progress renders descriptions as markup
        if self.live:
            self.tasks[phase] = self.progress.add_task(label, total=None)
        else:
            self.console.print(Text(f"{phase}: running" + (f" (faults: {', '.join(dict.fromkeys(faults))})"
                                                           if faults else "")))

    def step(self, phase: str, step: int, total: int | None) -> None:
        if self.live and phase in self.tasks:
            self.progress.update(self.tasks[phase], completed=step + 1, total=total)

    def phase_restarted(self, phase: str, attempt: int, reason: str) -> None:
        text = Text.assemble(f"{phase}: attempt {attempt} ended by ", (str(reason), "yellow"),
                             f"; restarting (attempt {attempt + 1})")
        (self.progress.console if self.live else self.console).print(text)

    def phase_finished(self, phase: str, result: PhaseResult) -> None:
        style = _STATUS_STYLE.get(result.status.value, "red")
        text = Text.assemble(f"{phase}: ", (result.status.value, style), f" in {result.duration_s:.1f} s")
        if self.live and phase in self.tasks:
            task = self.progress.tasks[self.tasks[phase]]
            self.progress.update(self.tasks[phase], total=task.total or task.completed or 1,
                                 completed=task.completed if task.total else task.completed or 1)
            self.progress.console.print(text)
        else:
            self.console.print(text)

    def assertions_started(self, count: int) -> None:
        self.console.print(Text(f"assertions: running {count}"))

    def run_finished(self, record: RunRecord) -> None:
        if self.live:
            self.progress.stop()


def print_summary(console: Console, record: RunRecord, run_dir: str) -> None:
    """The verdict, a table of the phases, the assertions and where the evidence is."""
    table = Table(title=None, show_edge=False)
    for column in ("phase", "status", "exit", "time (s)", "findings"):
        table.add_column(column)
    for name in ("control", "faulted"):
        phase = getattr(record, name)
        severities = {}
        for f in phase.findings:
            severities[f.severity.value] = severities.get(f.severity.value, 0) + 1
        counts = ", ".join(f"{n} {s}" for s, n in severities.items()) or "none"
        table.add_row(name, Text(phase.status.value, _STATUS_STYLE.get(phase.status.value, "red")),
                      "-" if phase.exit_code is None else str(phase.exit_code), f"{phase.duration_s:.1f}", Text(counts))
    console.print(table)
    for name in ("control", "faulted"):
        first_by_detector: dict[str, str] = {}
        for f in getattr(record, name).findings:
            first_by_detector.setdefault(f.detector, f"[{f.severity.value}] {f.detector}: {f.message}")
        for line in first_by_detector.values():
            console.print(f"  {name}: {line}", markup=False, highlight=False)
    for f in record.findings[:10]:  # the runner's own: evidence it could not read or archive
        where = f.location.get("file", "") + (f":{f.location['line']}" if "line" in f.location else "")
        console.print(Text.assemble("  evidence: ", (f"[{f.severity.value}]", "red" if f.severity.value in
                                                     ("error", "critical") else "yellow"), printable(f" {where} {f.message}")))
    if len(record.findings) > 10:
        console.print(Text(f"  evidence: ... {len(record.findings) - 10} more in run.json"))
    for line in _promql_lines(run_dir):
        console.print(Text(printable(line)), highlight=False)  # queries and Prometheus errors quote case text
    passed, failed = record.assertions["passed"], record.assertions["failed"]
    if record.error and not passed:
        console.print(Text(f"assertions: not run ({len(failed)})"))
    else:
        skipped = record.assertions.get("skipped") or []
        console.print(Text.assemble(f"assertions: {len(passed)} passed, {len(failed)} failed",
                                    *((" (", (", ".join(failed), "red"), ")") if failed else ()),
                                    *((f", {len(skipped)} skipped ({', '.join(skipped)})",) if skipped else ())))
        for failure in record.assertions.get("failures") or []:  # why, and which test of test_case.py says it
            console.print(Text.assemble("  failed: ", (failure["id"], "red"),
                                        printable(f" (test_case.py::{failure['test']}): {failure['message']}")),
                          highlight=False)
        for reason in _skip_reasons(run_dir) if skipped else ():
            console.print(Text(printable(f"  skipped: {reason}")), highlight=False)
    if record.error:
        console.print(Text.assemble(("error:", "red"), f" {record.error}"), highlight=False)
        cause = _last_error_line(run_dir)
        if cause:
            console.print(f"  {cause}", markup=False, highlight=False)
    style = _VERDICT_STYLE.get(record.verdict.value, "bold red")
    console.print(Text.assemble("verdict: ", (record.verdict.value.upper(), style), f" in {record.duration_s:.1f} s"))
    console.print(Text(f"evidence: {run_dir}"), highlight=False)


def _local_run_dir(run_uri: str):
    """The run directory on this machine: a ``file://`` URI or a plain path (a spool); None for a store."""
    from pathlib import Path

    if run_uri.startswith("file://"):
        return Path(run_uri.removeprefix("file://"))
    return Path(run_uri) if "://" not in run_uri else None


def _skip_reasons(run_uri: str, most: int = 3) -> list[str]:
    """The distinct reasons the suite gave for skipped tests (``junit.xml``), at most ``most``."""
    from faultlib.evidence import layout
    from faultlib.readers.junit import read_junit

    run_dir = _local_run_dir(run_uri)
    root = None if run_dir is None else read_junit(run_dir / layout.JUNIT)
    if root is None:
        return []
    reasons = dict.fromkeys((s.get("message") or "").removeprefix("Skipped: ").strip()[:300]
                            for s in root.iter("skipped"))
    return [r for r in reasons if r][:most]


def _promql_lines(run_uri: str) -> list[str]:
    """Sparklines of the run's ``promql.json`` (``--prometheus``); nothing for a run made without it."""
    from faultlib.errors import PromqlError, PromqlNotRecorded
    from faultlib.evidence.promql import load
    from faultlib.observability.sparkline import promql_lines

    run_dir = _local_run_dir(run_uri)
    if run_dir is None:
        return []
    try:
        return promql_lines(load(run_dir))
    except PromqlNotRecorded:
        return []
    except PromqlError as exc:
        return [f"promql: {exc}"]


def _last_error_line(run_uri: str) -> str | None:
    """The last line a crashed repro wrote to stderr (its exception), for a local run."""
    from pathlib import Path

    from faultlib.evidence import layout

    if not run_uri.startswith("file://"):
        return None
    path = Path(run_uri.removeprefix("file://")) / layout.STDERR
    if not path.is_file():
        return None
    with open(path, "rb") as fh:  # the tail only: a repro may have written gigabytes
        fh.seek(max(0, path.stat().st_size - 65536))
        tail = fh.read().decode("utf-8", errors="replace")
    lines = [line for line in tail.splitlines() if line.strip() and not line.startswith("# faultlib")]
    return lines[-1] if lines else None
