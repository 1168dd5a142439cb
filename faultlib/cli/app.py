"""The ``faultlib`` command line (click + rich). Heavy libraries load inside commands, never at import.

Exit codes: 0 passed / nothing found; 1 a case failed or a finding was raised; 2 bad usage
or bad input; 3 a backend or archive was unreachable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from faultlib import __version__
from faultlib.errors import FaultlibError

stdout = Console()
stderr = Console(stderr=True)
_state = {"json": False, "debug": False}

DEFAULT_CASES = Path("cases")
CASE_DIR = click.Path(path_type=Path)


def _emit_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="faultlib")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def app(debug: bool) -> None:
    """Reproduce ML-system failures, catch them with detectors, and archive the evidence.

    Start with: faultlib run cases/fp16_overflow

    Exit codes: 0 passed, 1 failed (or a finding), 2 bad usage or input, 3 backend or archive unreachable.
    """
    _state["debug"] = debug


@app.group("archive")
def archive_app() -> None:
    """Inspect archived runs."""


@app.command()
@click.argument("case_dir", type=CASE_DIR)
@click.option("--backend", type=click.Choice(["local", "compose", "kubernetes"]), default="local", show_default=True,
              help="Where the phases run.")
@click.option("--archive", metavar="URI", default=None, help="file://DIR (default file://.faultlib/runs).")
@click.option("--no-control", is_flag=True, help="Skip the control run (and its false-positive check).")
@click.option("--seed", type=int, default=None, help="Override repro.seed.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Per-phase timeout (default repro.timeout_s).")
@click.option("--json", "as_json", is_flag=True, help="Print the run record as one JSON object on stdout.")
def run(case_dir: Path, backend: str, archive: str | None, no_control: bool, seed: int | None,
        timeout: float | None, as_json: bool) -> int:
    """Run a case: control run, faulted run, assertion suite; archive the evidence.

    Exit code 0 when the verdict is passed, 1 when it is failed or error.
    """
    from faultlib.archive import open_archive
    from faultlib.cases import load_case
    from faultlib.cli.progress import RichProgress, print_summary
    from faultlib.record import Verdict
    from faultlib.runner import Runner

    _state["json"] = as_json
    case = load_case(case_dir)
    store = open_archive(archive)
    listener = None if as_json else RichProgress(stderr)
    record = Runner(store, backend=backend, listener=listener).run(
        case, control=not no_control, seed=seed, timeout_s=timeout)
    if as_json:
        _emit_json(record.to_json())
    else:
        print_summary(stdout, record, record.archive_uri)
    return 0 if record.verdict is Verdict.PASSED else 1


@app.command("list")
@click.argument("cases_dir", type=CASE_DIR, default=DEFAULT_CASES)
@click.option("--fault-class", metavar="PREFIX", default=None, help="Only fault classes starting with PREFIX.")
@click.option("--json", "as_json", is_flag=True, help='Print {"cases": [...]} on stdout.')
def list_cases(cases_dir: Path, fault_class: str | None, as_json: bool) -> int:
    """List the catalog (default ./cases) as a table or JSON."""
    from faultlib.cases import discover, load_case
    _state["json"] = as_json
    cases, broken = [], []
    for path in discover(cases_dir):
        try:
            case = load_case(path)
        except FaultlibError as exc:
            broken.append(exc)
            continue
        if fault_class and not case.fault_class.startswith(fault_class):
            continue
        cases.append(case)
    rows = [{"id": c.id, "version": c.version, "fault_class": c.fault_class, "severity": c.severity,
             "title": c.title, "path": str(c.path)} for c in cases]
    if as_json:
        _emit_json({"cases": rows, "invalid": [str(e) for e in broken]})
    else:
        table = Table(show_edge=False)
        for column in ("id", "version", "fault_class", "severity"):
            table.add_column(column, no_wrap=True)
        table.add_column("title")
        for row in rows:
            table.add_row(row["id"], row["version"], row["fault_class"], row["severity"], row["title"])
        stdout.print(table)
        for exc in broken:
            stderr.print(f"invalid case: {exc}", markup=False, highlight=False)
    return 2 if broken else 0


@app.command()
@click.argument("case_dirs", nargs=-1, type=CASE_DIR)
def validate(case_dirs: tuple[Path, ...]) -> int:
    """Validate case directories (default: every case in ./cases).

    Prints every problem as file:line: field: message and exits 2 if there is one.
    """
    from faultlib.cases import discover, load_case

    paths = [p for d in (case_dirs or [DEFAULT_CASES]) for p in (discover(d) or [d])]
    bad = 0
    for path in paths:
        try:
            load_case(path)
        except FaultlibError as exc:
            bad += 1
            stderr.print(str(exc), markup=False, highlight=False)
        else:
            stdout.print(f"ok  {path}", markup=False, highlight=False)
    if bad:
        stderr.print(f"{bad} of {len(paths)} case(s) invalid", markup=False)
    return 2 if bad else 0


@archive_app.command("ls")
@click.argument("uri", required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"runs": [...]} on stdout.')
def archive_ls(uri: str | None, as_json: bool) -> int:
    """List archived runs (default archive file://.faultlib/runs).

    A run without manifest.json is incomplete: killed, or still being written.
    """
    from faultlib.archive import open_archive

    _state["json"] = as_json
    runs = open_archive(uri).list_runs()
    if as_json:
        _emit_json({"runs": [r.to_json() for r in runs]})
        return 0
    table = Table(show_edge=False)
    for column in ("case", "run_id", "complete", "started_at", "verdict"):
        table.add_column(column, no_wrap=True)
    for r in runs:
        table.add_row(r.case, r.run_id, "yes" if r.complete else "[red]no[/]", r.started_at or "-", r.verdict or "-")
    stdout.print(table)
    return 0


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: maps errors to exit codes in one place."""
    try:
        code = app.main(args=argv, prog_name="faultlib", standalone_mode=False)
    except FaultlibError as exc:
        if _state["debug"]:
            raise
        if _state["json"]:
            _emit_json(exc.to_json())
        else:
            stderr.print(f"error: {exc}", markup=False, highlight=False)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        stderr.print("aborted")
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
