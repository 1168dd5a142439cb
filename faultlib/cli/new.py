"""``faultlib new NAME [--from-trace TRACE]``: a new case directory from an incident trace, or without one.

Nothing is written before the trace has been read and every file rendered; an existing directory
is never overwritten (exit 2), and a failure leaves no partial case (see
:mod:`faultlib.traces.scaffold`). The generated case passes ``faultlib validate`` as written; what a
person still has to fill in is printed and kept in the case's README.md.
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.console import emit_json, state, stdout
from faultlib.errors import InputError
from faultlib.outputs import output_dir
from faultlib.text import inline


@click.command("new")
@click.argument("name")
@click.option("--from-trace", "trace", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="OTLP/JSON trace of the incident (Collector file export, traces.jsonl, or one JSON document; gzip ok). "
                   "Without it: the same case between two placeholder services, to rename.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("cases"), show_default=True,
              help="Directory to create the case in (as OUT/NAME).")
@click.option("--json", "as_json", is_flag=True, help="Print {case_dir, edge, reason, todo} as JSON on stdout.")
def new(name: str, trace: Path | None, out: Path, as_json: bool) -> int:
    """Create the case NAME (snake_case) from an incident trace (or, without one, placeholder services).

    Picks the failing or slowest call in the trace, and writes case.yaml (a tcp_latency shim on
    that call's endpoint and its NetworkChaos twin, PromQL for the spans seen), compose.yaml,
    a repro.py skeleton, test_case.py and README.md. Refuses to overwrite an existing directory.
    """
    from faultlib.cases import load_case
    from faultlib.observability.dashboards import catalog_claims, next_free_id
    from faultlib.traces.scaffold import check_name, render, write

    state["json"] = as_json
    check_name(name)
    output_dir(out, "--out", create=False)  # no symbolic link on the way (``cases -> /etc`` in a cloned repository)
    if (out / name).exists() or (out / name).is_symlink():
        raise InputError("already exists: faultlib new never overwrites a case; pick another NAME or remove it",
                         path=str(out / name))
    siblings = [d for d in out.iterdir() if (d / "case.yaml").is_file()] if out.is_dir() else []
    first_panel_id = next_free_id(catalog_claims(siblings), "infra")  # unique on the family's dashboard
    scaffold = render(name, trace, first_panel_id=first_panel_id)
    target = write(scaffold, out, check=load_case)  # the promise: valid as generated, or nothing is written
    (parent, child), suspect = scaffold.suspect.edge, scaffold.suspect
    if as_json:
        emit_json({"case_dir": str(target), "reason": suspect.reason, "endpoint": suspect.endpoint,
                    "edge": {"parent": {"service": parent[0], "operation": parent[1]},
                             "child": {"service": child[0], "operation": child[1]}, **suspect.stats},
                    "todo": scaffold.todo})
        return 0
    # names from the trace are one line each: a newline in a service.name must not forge a line of output
    stdout.print(f"created {inline(str(target))}: {inline(suspect.reason)} on {inline(parent[0])}/{inline(parent[1])} -> "
                 f"{inline(child[0])}/{inline(child[1])} (endpoint {inline(suspect.endpoint)}, "
                 f"{suspect.stats['count']} calls, {suspect.stats['errors']} failed, P99 {suspect.stats['p99_ms']} ms)",
                 markup=False, highlight=False)
    stdout.print("still to fill in (also in README.md):", markup=False)
    for line in scaffold.todo:
        stdout.print(f"  - {inline(line)}", markup=False, highlight=False)
    return 0
