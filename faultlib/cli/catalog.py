"""``faultlib list`` and ``faultlib validate``: what the catalog holds, and whether each case is sound."""

from __future__ import annotations

from pathlib import Path

import click
from rich.cells import cell_len
from rich.text import Text

from faultlib.cli.root import CASE_DIR, DEFAULT_CASES
from faultlib.console import emit_json, printable, state, stderr, stdout
from faultlib.errors import CaseError, FaultlibError
from faultlib.text import inline


@click.command("list")
@click.argument("cases_dir", type=CASE_DIR, default=DEFAULT_CASES)
@click.option("--fault-class", metavar="PREFIX", default=None, help="Only fault classes starting with PREFIX.")
@click.option("--json", "as_json", is_flag=True, help='Print {"cases": [...]} on stdout.')
def list_cases(cases_dir: Path, fault_class: str | None, as_json: bool) -> int:
    """List the catalog (default ./cases) as a table or JSON.

    Columns: id, version, fault class, severity (critical: results silently wrong; error: fails visibly;
    warning: degraded), needs (devices beyond a CPU, e.g. cuda: such a case is skipped where there is none)
    and title (on a narrow terminal, on the line under its case).
    """
    from faultlib.cases.loader import NO_CASES, discover, load_case
    state["json"] = as_json
    if not cases_dir.is_dir():
        raise CaseError("catalog directory not found: pass the folder holding the case directories",
                        path=cases_dir)
    paths = discover(cases_dir)
    if not paths:  # an empty table, exit 0, for the wrong folder: say so, as regress does
        raise CaseError(NO_CASES, path=cases_dir)
    cases, broken = [], []
    for path in paths:
        try:
            case = load_case(path)
        except FaultlibError as exc:
            broken.append(exc)
            continue
        if fault_class and not case.fault_class.startswith(fault_class):
            continue
        cases.append(case)
    rows = [{"id": c.id, "version": c.version, "fault_class": c.fault_class, "severity": c.severity,
             "needs": needs(c), "title": c.title, "path": str(c.path)} for c in cases]
    if as_json:
        emit_json({"cases": rows, "invalid": [str(e) for e in broken]})
    else:
        _print_cases(rows)
        for exc in broken:
            stderr.print(f"invalid case: {printable(str(exc))}", markup=False, highlight=False)
    return 2 if broken else 0


CODES = ("id", "version", "fault_class", "severity", "needs")
SEVERITY_STYLES = {"critical": "bold red", "error": "red", "warning": "yellow", "info": "dim"}
#: narrowest title column worth a table; below it each title goes on its own line under its case
MIN_TITLE = 24


def _print_cases(rows: list[dict]) -> None:
    """The catalog for people: id, version, fault class, severity and needs are codes a user copies (never cut or
    folded); the title fills the rest of the line, or, where the codes leave less than :data:`MIN_TITLE`
    columns (an 80-column terminal), goes on the next line, indented and wrapped."""
    cells = [{"needs": ", ".join(row["needs"]) or "-", **{c: inline(row[c]) for c in CODES if c != "needs"},
              "title": row["title"]} for row in rows]
    widths = {c: max([len(c)] + [cell_len(cell[c]) for cell in cells]) for c in CODES}
    table_width = sum(w + 3 for w in widths.values()) + MIN_TITLE + 2  # rich: 1 space each side, 1 rule between
    if stdout.width >= table_width:
        from rich.table import Table

        table = Table(show_edge=False)
        for column in CODES:
            table.add_column(column, no_wrap=True, min_width=widths[column])
        table.add_column("title")
        for cell in cells:
            table.add_row(*_styled(cell), Text(inline(cell["title"])))  # escaped before rich measures it
        stdout.print(table)
        return
    gap = 2 if sum(widths.values()) + 2 * (len(CODES) - 1) <= stdout.width else 1
    stdout.print(Text((" " * gap).join(c.ljust(widths[c]) for c in CODES).rstrip(), "bold"))
    for cell in cells:
        line = Text()
        for column, text in zip(CODES, _styled(cell)):
            line.append_text(text)
            line.append(" " * (widths[column] - cell_len(cell[column]) + gap))
        line.rstrip()
        stdout.print(line, highlight=False)
        for part in Text(inline(cell["title"])).wrap(stdout, max(stdout.width - 4, MIN_TITLE)):
            part.rstrip()
            stdout.print(Text("    ").append_text(part), highlight=False)


def _styled(cell: dict) -> list[Text]:
    return [Text(cell["id"]), Text(cell["version"]), Text(cell["fault_class"]),
            Text(cell["severity"], SEVERITY_STYLES.get(cell["severity"], "")),
            Text(cell["needs"], "dim" if cell["needs"] == "-" else "bold")]


def needs(case) -> list[str]:
    """What a case needs beyond a CPU to run here: its ``requires.devices`` other than ``cpu`` (``cuda``);
    a case that needs one this machine lacks is skipped by ``regress`` and refused by ``run``."""
    devices = case.requires.get("devices") or []
    return [str(d) for d in devices if str(d) != "cpu"]


@click.command("validate")
@click.argument("case_dirs", nargs=-1, type=CASE_DIR)
@click.option("--archive", metavar="URI", default=None,
              help="Check spans and metrics against each case's last run in this archive "
                   "(default file://.faultlib/runs; no run there: not checked).")
@click.option("-v", "--verbose", is_flag=True,
              help="Also print, per case, what was not checked and the run it was checked against.")
@click.option("--json", "as_json", is_flag=True, help='Print {"ok", "cases": [...], "notes": [...]} on stdout.')
def validate(case_dirs: tuple[Path, ...], archive: str | None, verbose: bool, as_json: bool) -> int:
    """Validate case directories (default: every case in ./cases).

    Beyond the schema and the case's files, it proves the observability block: every PromQL query
    parses (promtool when installed, promql-parser always) and reads only declared metrics; every
    Grafana panel exists in the checked-in dashboard with the case's query (compose/grafana/dashboards
    beside the catalog) and has an id no other case of its family claims; every span and metric
    appears in the case's last archived run (when there is one).

    Prints every problem as file:line: field: message and exits 2 if there is one.
    """
    from faultlib.cases.loader import ValidationContext, discover, validate_case

    state["json"] = as_json
    paths = [p for d in (case_dirs or [DEFAULT_CASES]) for p in (discover(d) or [d])]
    context = ValidationContext(archive)
    reports = [validate_case(path, context) for path in paths]
    bad = sum(not r.ok for r in reports)
    if as_json:
        emit_json({"ok": not bad, "cases": [r.to_json() for r in reports], "notes": context.notes})
        return 2 if bad else 0
    for path, report in zip(paths, reports):
        for problem in report.problems:
            stderr.print(printable(problem.render()), markup=False, highlight=False)
        if report.ok:
            stdout.print(f"ok  {path}", markup=False, highlight=False)
        for note in report.notes if verbose else []:
            stderr.print(f"note: {path}: {printable(note)}", markup=False, highlight=False)
    for note in context.notes:
        stderr.print(f"note: {printable(note)}", markup=False, highlight=False)
    if bad:
        stderr.print(f"{bad} of {len(paths)} case(s) invalid", markup=False)
    return 2 if bad else 0
