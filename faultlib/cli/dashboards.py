"""``faultlib dashboards``: the Grafana dashboards of the catalog, one per fault-class family.

Every case is validated first (nothing is written when one is invalid, or when two cases of a
family claim one panel id). Then each ``faultlib-<family>.json`` in ``--out`` is replaced only when
its text differs from the generator's, and ``faultlib-*.json`` files of families the catalog no
longer has are removed; other files there are never touched. ``--check`` writes nothing.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.text import Text

from faultlib.cli.root import CASE_DIR, DEFAULT_CASES
from faultlib.console import emit_json, state, stderr, stdout
from faultlib.errors import CaseError, CaseValidationError, InputError


def _cases(cases_dir: Path) -> list:
    """Every case of the catalog, loaded; all problems of all cases raised together."""
    from faultlib.cases import discover, load_case
    from faultlib.observability.dashboards import catalog_claims, collision_message, collisions, next_free_id

    if not cases_dir.is_dir():
        raise CaseError("catalog directory not found: pass the folder holding the case directories", path=cases_dir)
    paths = discover(cases_dir)
    if not paths:
        raise CaseError("no case directories (folders holding a case.yaml) in the catalog", path=cases_dir)
    cases, problems = [], []
    for path in paths:
        try:
            cases.append(load_case(path))
        except CaseValidationError as exc:
            problems += exc.problems
        except CaseError as exc:
            problems.append(exc)
    claimed = catalog_claims(paths)
    for claims in collisions(claimed).values():
        for claim in sorted(claims, key=lambda c: str(c.path)):
            others = [c for c in claims if c is not claim]
            message = collision_message(claim, others, next_free_id(claimed, claim.family))
            problems.append(CaseError(message,
                                      path=claim.path, line=claim.line,
                                      field=f"observability.grafana.panels[{claim.index}].id"))
    if problems:
        raise CaseValidationError(problems)
    return cases


@click.command("dashboards")
@click.argument("cases_dir", type=CASE_DIR, default=DEFAULT_CASES)
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where the dashboards go (default: compose/grafana/dashboards beside CASES_DIR).")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when a file in --out differs from the catalog's.")
@click.option("--json", "as_json", is_flag=True, help='Print {"ok", "written", "unchanged", "removed"} on stdout.')
def dashboards(cases_dir: Path, out: Path | None, check: bool, as_json: bool) -> int:
    """Generate the Grafana dashboards from the catalog (default ./cases): one per fault-class family,
    uid faultlib-<family>, with the panel ids and PromQL queries the cases name.

    Exit 0 when the files are (now) the generator's; with --check, 1 when one differs, is missing,
    or belongs to a family the catalog no longer has (each listed); 2 when a case is invalid.
    """
    from faultlib.observability import dashboards as boards

    state["json"] = as_json
    cases = _cases(cases_dir)
    compose_dir = boards.dashboards_dir(cases_dir).parent.parent
    out = out if out is not None else boards.dashboards_dir(cases_dir)
    try:
        report = boards.sync(boards.build(cases, boards.provisioned_datasource(compose_dir)), out, check=check)
    except OSError as exc:
        raise InputError(f"cannot write the dashboards there: {exc.strerror or exc}", path=out) from None
    if as_json:
        emit_json({"ok": report.in_step or not check, **report.to_json()})
        return 1 if check and not report.in_step else 0
    verb = ("differs", "would be removed (no such family in the catalog)") if check else \
        ("written", "removed (no such family in the catalog)")
    for path in report.written:
        (stderr if check else stdout).print(Text(f"{verb[0]}: {path}"))
    for path in report.removed:
        (stderr if check else stdout).print(Text(f"{verb[1]}: {path}"))
    if check and not report.in_step:
        stderr.print(Text(f"{len(report.written) + len(report.removed)} dashboard file(s) out of step with the "
                          f"catalog: run faultlib dashboards {cases_dir} --out {out}"))
        return 1
    stdout.print(Text(f"{len(report.unchanged) + (0 if check else len(report.written))} dashboard(s) in {out} "
                      f"match the catalog's {len(cases)} case(s)"))
    return 0
