"""Human output of ``faultlib run``: a live progress display (stderr) and the final summary."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from faultlib.events import RunListener
from faultlib.record import PhaseResult, RunRecord

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
        self.console.print(f"[bold]{case.id}[/] {case.version} ({case.fault_class}): {case.title}")

    def run_started(self, run_id: str, run_dir: str) -> None:
        self.console.print(f"run {run_id} -> {run_dir}")
        if self.live:
            self.progress.start()

    def phase_started(self, phase: str, faults: list[str]) -> None:
        label = f"{phase:<8}" + (f" [yellow]faults: {', '.join(faults)}[/]" if faults else " [dim]no fault[/]")
        if self.live:
            self.tasks[phase] = self.progress.add_task(label, total=None)
        else:
            self.console.print(f"{phase}: running" + (f" (faults: {', '.join(faults)})" if faults else ""))

    def step(self, phase: str, step: int, total: int | None) -> None:
        if self.live and phase in self.tasks:
            self.progress.update(self.tasks[phase], completed=step + 1, total=total)

    def phase_restarted(self, phase: str, attempt: int, reason: str) -> None:
        text = f"{phase}: attempt {attempt} ended by [yellow]{reason}[/]; restarting (attempt {attempt + 1})"
        (self.progress.console if self.live else self.console).print(text)

    def phase_finished(self, phase: str, result: PhaseResult) -> None:
        style = _STATUS_STYLE[result.status.value]
        text = f"{phase}: [{style}]{result.status.value}[/] in {result.duration_s:.1f} s"
        if self.live and phase in self.tasks:
            task = self.progress.tasks[self.tasks[phase]]
            self.progress.update(self.tasks[phase], total=task.total or task.completed or 1,
                                 completed=task.completed if task.total else task.completed or 1)
            self.progress.console.print(text)
        else:
            self.console.print(text)

    def assertions_started(self, count: int) -> None:
        self.console.print(f"assertions: running {count}")

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
        table.add_row(name, f"[{_STATUS_STYLE[phase.status.value]}]{phase.status.value}[/]",
                      "-" if phase.exit_code is None else str(phase.exit_code), f"{phase.duration_s:.1f}", counts)
    console.print(table)
    for name in ("control", "faulted"):
        first_by_detector: dict[str, str] = {}
        for f in getattr(record, name).findings:
            first_by_detector.setdefault(f.detector, f"[{f.severity.value}] {f.detector}: {f.message}")
        for line in first_by_detector.values():
            console.print(f"  {name}: {line}", markup=False, highlight=False)
    passed, failed = record.assertions["passed"], record.assertions["failed"]
    if record.error and not passed:
        console.print(f"assertions: not run ({len(failed)})")
    else:
        console.print(f"assertions: {len(passed)} passed, {len(failed)} failed"
                      + (f" ([red]{', '.join(failed)}[/])" if failed else ""))
    if record.error:
        console.print(f"[red]error:[/] {record.error}")
        cause = _last_error_line(run_dir)
        if cause:
            console.print(f"  {cause}", markup=False, highlight=False)
    style = _VERDICT_STYLE[record.verdict.value]
    console.print(f"verdict: [{style}]{record.verdict.value.upper()}[/] in {record.duration_s:.1f} s")
    console.print(f"evidence: {run_dir}", highlight=False)


def _last_error_line(run_uri: str) -> str | None:
    """The last line a crashed repro wrote to stderr (its exception), for a local run."""
    from pathlib import Path

    from faultlib.evidence import layout

    if not run_uri.startswith("file://"):
        return None
    path = Path(run_uri.removeprefix("file://")) / layout.STDERR
    if not path.is_file():
        return None
    lines = [line for line in path.read_text(errors="replace").splitlines()
             if line.strip() and not line.startswith("# faultlib")]
    return lines[-1] if lines else None
