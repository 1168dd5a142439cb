"""``faultlib archive ls|get|flush``: list, fetch and flush archived runs."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from faultlib.cli.app import _emit_json, _state, app, stderr, stdout


@app.group("archive")
def archive_app() -> None:
    """List, fetch and flush archived runs (file://DIR or s3://BUCKET/PREFIX)."""


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


@archive_app.command("get")
@click.argument("uri")
@click.argument("case_id")
@click.argument("run_id")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Write the run into OUT/CASE_ID/RUN_ID/.")
def archive_get(uri: str, case_id: str, run_id: str, out: Path) -> int:
    """Download a run and verify every file against its manifest (size and sha256).

    Exit code 2 when the run is incomplete or a file differs (the message names it), 3 when the store
    cannot be reached.
    """
    from faultlib.archive import open_archive

    run_dir = open_archive(uri).get(case_id, run_id, out)
    count = sum(1 for p in run_dir.rglob("*") if p.is_file())
    stdout.print(f"{case_id}/{run_id}: {count} files verified -> {run_dir}", markup=False, highlight=False)
    return 0


@archive_app.command("flush")
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"flushed": [...], "uploaded_files": N, "incomplete": [...], "damaged": [...]}.')
def archive_flush(uri: str, as_json: bool) -> int:
    """Upload the runs waiting in the local spool for URI (left there when the store was down).

    Files the store already holds with the same size and sha256 are not sent again, so flushing
    twice uploads nothing the second time. Exit code 3 when the store cannot be reached (the runs
    stay spooled), 2 when a spooled run no longer matches its manifest (it is left alone).
    """
    from faultlib.archive import open_archive

    _state["json"] = as_json
    report = open_archive(uri).flush()
    if as_json:
        _emit_json(report.to_json())
    else:
        for run in report.flushed:
            stdout.print(f"flushed {run.case}/{run.run_id}: {run.uploaded} file(s) uploaded, "
                         f"{run.already_stored} already stored", markup=False, highlight=False)
        if not report.flushed:
            stdout.print("nothing to flush")
        for path in report.incomplete:
            stderr.print(f"skipped {path}: no manifest.json (killed or still running)", markup=False,
                         highlight=False)
    for path, problem in report.damaged:
        stderr.print(f"error: not flushed: {problem}", markup=False, highlight=False)
    return 2 if report.damaged else 0
