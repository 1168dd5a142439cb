"""``faultlib archive ls|get|flush|repair``: list, fetch, flush and repair archived runs.

What comes from an archive (case ids, run ids, paths, messages) is printed as plain text, never as
rich markup: a run id holding ``[/]`` is shown as it is. Errors are raised as
:class:`~faultlib.errors.FaultlibError` and printed once by :func:`faultlib.cli.app.main`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.text import Text

from faultlib.console import emit_json, state, stderr, stdout

if TYPE_CHECKING:
    from rich.table import Table


def _plain(text: str) -> str:
    """``text`` with control characters escaped (``\\x1b``): names from a store cannot drive the terminal."""
    return "".join(c if c.isprintable() or c in "\n\t" else c.encode("unicode_escape").decode("ascii")
                   for c in text)


def _say(console, text: str) -> None:
    console.print(Text(_plain(text)), highlight=False, soft_wrap=True)


#: columns of prose, wrapped to the width left; every other column holds a code a user copies (a case id, a run
#: id, a verdict) and is never cut or folded
PROSE = ("detail", "note", "started_at")


def _cells(rows: list[tuple]) -> list[list[Text]]:
    """Every cell as plain text (never markup; or :class:`Text` already styled)."""
    return [[cell if isinstance(cell, Text) else Text(_plain(str(cell))) for cell in row] for row in rows]


def _code_width(columns: tuple[str, ...], cells: list[list[Text]]) -> dict[str, int]:
    """The width each code column needs to show its header and every cell whole."""
    return {column: max([len(column)] + [row[i].cell_len for row in cells])
            for i, column in enumerate(columns) if column not in PROSE}


def _table(columns: tuple[str, ...], rows: list[tuple]) -> Table:
    """A table of plain-text cells whose code columns (ids, verdicts) are at least as wide as their longest cell:
    on a narrow terminal rich shrinks the prose columns (:data:`PROSE`), never an id (it used to crop
    ``20261204T231719Z-c563ff`` to ``20261204T231719Z-c56`` at 80 columns, an id no command accepts)."""
    cells = _cells(rows)
    widths = _code_width(columns, cells)
    from rich.table import Table

    table = Table(show_edge=False)
    for column in columns:
        if column in PROSE:
            table.add_column(column, overflow="fold")
        else:
            table.add_column(column, no_wrap=True, min_width=widths[column])
    for row in cells:
        table.add_row(*row)
    return table


def _fits(columns: tuple[str, ...], rows: list[tuple]) -> bool:
    """Whether every column of ``columns`` but ``note`` (which wraps, from at least 10 columns) fits :data:`stdout`'s
    width whole (rich: one space each side of a cell, one rule between cells)."""
    cells = _cells(rows)
    widths = [10 if column == "note" else max([len(column)] + [row[i].cell_len for row in cells])
              for i, column in enumerate(columns)]
    return sum(w + 3 for w in widths) - 1 <= stdout.width


@click.group("archive")
def archive_app() -> None:
    """List, fetch, flush and repair archived runs (file://DIR or s3://BUCKET/PREFIX)."""


@archive_app.command("ls")
@click.argument("uri", required=False)
@click.option("--json", "as_json", is_flag=True, help='Print {"runs": [...]} on stdout.')
def archive_ls(uri: str | None, as_json: bool) -> int:
    """List archived runs (default archive file://.faultlib/runs).

    A run without manifest.json is incomplete: killed, or still being written (`faultlib archive
    repair` finishes those whose runner is gone). A run.json that cannot be read shows verdict `?`
    and a note. Ids are never cut: where started_at does not fit (80 columns), it is left out (the run id
    holds the start time, UTC). Exit code 2 when there is no archive at URI or a run's manifest is malformed (the
    run is listed, its note names the field), 3 when the store cannot be reached.
    """
    from faultlib.archive import open_archive

    state["json"] = as_json
    runs = open_archive(uri).list_runs()
    damaged = [r for r in runs if r.damaged]
    if as_json:
        emit_json({"runs": [r.to_json() for r in runs]})
    else:
        rows = [(r.case, r.run_id, Text("yes") if r.complete else Text("no", style="red"), r.started_at or "-",
                 r.verdict or "-", r.note or "") for r in runs]
        columns = ("case", "run_id", "complete", "started_at", "verdict", "note")
        if not any(r.note for r in runs):
            columns, rows = columns[:-1], [row[:-1] for row in rows]
        if not _fits(columns, rows):  # the run id says when it started (UTC, to the second): the codes come first
            columns, rows = columns[:3] + columns[4:], [row[:3] + row[4:] for row in rows]
        stdout.print(_table(columns, rows))
        for run in damaged:
            _say(stderr, f"error: {run.case}/{run.run_id}: {run.note}")
    return 2 if damaged else 0


def _latest(archive, case_id: str) -> str:
    """The run id of ``case_id``'s newest complete run in ``archive`` (run ids sort by start time).

    Raises:
        InputError: the archive holds no complete run of the case (exit 2).
    """
    from faultlib.errors import InputError

    runs = [r.run_id for r in archive.list_runs() if r.case == case_id and r.complete]
    if not runs:
        raise InputError(f"no complete run of {case_id!r} in {archive.uri}: faultlib archive ls {archive.uri} "
                         "lists what it holds")
    return max(runs)


@archive_app.command("get")
@click.argument("args", nargs=-1, metavar="[URI] CASE_ID RUN_ID|latest")
@click.option("--archive", "archive_uri", metavar="URI", default=None,
              help="The archive to fetch from (default file://.faultlib/runs, as for archive ls); or give URI "
                   "as the first argument.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="Write the run into OUT/CASE_ID/RUN_ID/.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"case", "run_id", "path", "files"} on stdout (run_id resolved for latest).')
def archive_get(args: tuple[str, ...], archive_uri: str | None, out: Path, as_json: bool) -> int:
    """Download a run and verify every file against its manifest (size and sha256).

    RUN_ID `latest` is the case's newest complete run. The archive is URI (first argument) or
    --archive, by default file://.faultlib/runs: `faultlib archive get fp16_overflow latest` and
    `faultlib archive get s3://bucket/runs fp16_overflow 20261130T000000Z-abcdef` both work.

    Only the files the manifest lists are written, never through a symbolic link, and never outside
    OUT; nothing is left in OUT when a check fails. Exit code 2 when an id is not a plain name, the
    run is incomplete, its manifest is malformed or a file differs (the message names it), 3 when the
    store cannot be reached.
    """
    from faultlib.archive import open_archive

    state["json"] = as_json
    if len(args) == 3:
        if archive_uri is not None:
            raise click.UsageError("give the archive once: as URI (the first argument) or as --archive")
        archive_uri, case_id, run_id = args
    elif len(args) == 2:
        case_id, run_id = args
    else:
        raise click.UsageError(f"expected [URI] CASE_ID RUN_ID, got {len(args)} argument(s)")
    archive = open_archive(archive_uri)
    if run_id == "latest":
        run_id = _latest(archive, case_id)
    run_dir = archive.get(case_id, run_id, out)
    count = sum(1 for p in run_dir.rglob("*") if p.is_file())
    if as_json:
        emit_json({"case": case_id, "run_id": run_id, "path": str(run_dir), "files": count})
    else:
        _say(stdout, f"{case_id}/{run_id}: {count} files verified -> {run_dir}")
    return 0


@archive_app.command("flush")
@click.argument("uri")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"flushed", "uploaded_files", "repaired", "incomplete", "damaged", "failed", "skipped"}.')
def archive_flush(uri: str, as_json: bool) -> int:
    """Upload the runs waiting in the local spool for URI (left there when the store was down).

    Run by run: a spooled run whose runner was killed is repaired first (verdict `interrupted`), a
    run still running is left alone, a run another `flush` holds is skipped, and a run that is damaged
    or refused is reported while the others go on. Files the store already holds with the same size
    and sha256 are not sent again, so flushing twice uploads nothing the second time.

    Exit code (once every run was tried): 0 when nothing went wrong; 2 when a run is damaged or
    malformed, or the store refused it; else 3 when the store could not be reached (those runs stay
    spooled).
    """
    from faultlib.archive import open_archive

    state["json"] = as_json
    report = open_archive(uri).flush()
    if as_json:
        emit_json(report.to_json())
        return report.exit_code
    repaired = {(r.case, r.run_id): r.verdict for r in report.repaired}
    rows = []
    for run in report.flushed:
        note = f"; repaired first (verdict {repaired[run.case, run.run_id]})" if (run.case, run.run_id) in repaired \
            else ""
        rows.append((f"{run.case}/{run.run_id}", Text("flushed", style="green"),
                     f"{run.uploaded} file(s) uploaded, {run.already_stored} already stored{note}"))
    for label, style, outcomes in (("incomplete", "yellow", report.incomplete), ("damaged", "red", report.damaged),
                                   ("failed", "red", report.failed), ("skipped", "yellow", report.skipped)):
        rows += [(f"{o.case}/{o.run_id}", Text(label, style=style), o.reason) for o in outcomes]
    if rows:
        stdout.print(_table(("run", "result", "detail"), rows))
    else:
        _say(stdout, "nothing to flush")
    if report.exit_code:
        left = len(report.damaged) + len(report.failed)
        _say(stderr, f"error: {left} run(s) not flushed (see the table); they wait in the spool")
    return report.exit_code


@archive_app.command("repair")
@click.argument("uri", required=False)
@click.option("--json", "as_json", is_flag=True,
              help='Print {"repaired", "running", "incomplete", "failed", "skipped"}.')
def archive_repair(uri: str | None, as_json: bool) -> int:
    """Finish the runs whose runner was killed (default archive file://.faultlib/runs).

    Every run directory without manifest.json whose runner is gone gets run.json with verdict
    `interrupted` and its manifest, so the evidence it wrote becomes a complete run; nothing is
    removed. A run whose runner is still alive is left alone. For s3:// URIs this repairs the runs
    waiting in the local spool (`faultlib archive flush URI` then uploads them). Exit code 2 when a
    run could not be repaired or there is no archive at URI.
    """
    from faultlib.archive import open_archive

    state["json"] = as_json
    report = open_archive(uri).repair()
    if as_json:
        emit_json(report.to_json())
        return report.exit_code
    rows = [(f"{r.case}/{r.run_id}", Text("repaired", style="green"), f"verdict {r.verdict}: {r.path}")
            for r in report.repaired]
    for label, style, outcomes in (("still running", "yellow", report.running),
                                   ("incomplete", "yellow", report.incomplete), ("failed", "red", report.failed),
                                   ("skipped", "yellow", report.skipped)):
        rows += [(f"{o.case}/{o.run_id}", Text(label, style=style), o.reason) for o in outcomes]
    if rows:
        stdout.print(_table(("run", "result", "detail"), rows))
    else:
        _say(stdout, "nothing to repair: every run has its manifest")
    return report.exit_code
