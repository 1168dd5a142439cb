"""``faultlib shims``: every registered injector with its parameters, types, defaults and docs."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from faultlib.cli.root import app
from faultlib.console import emit_json, state, stdout


@app.command("shims")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help='Print {"shims": [...]} on stdout.')
def shims(names: tuple[str, ...], as_json: bool) -> int:
    """List the fault shims a case can name in inject.local (default: all), with their parameters.

    Give NAMES to see only those shims, with their full docstring.
    """
    from faultlib.inject.registry import available, describe

    state["json"] = as_json
    described = [describe(name) for name in (names or available())]
    if as_json:
        emit_json({"shims": described})
        return 0
    for shim in described:
        stdout.print(Text.assemble((shim["name"], "bold"), f"  {shim['summary']}"))
        table = Table(show_edge=False, box=None, padding=(0, 2))
        for column in ("param", "type", "required", "default", "range", "description"):
            table.add_column(column, overflow="fold")
        for p in shim["params"]:
            low, high = p.get("minimum"), p.get("maximum")
            bounds = (f"[{low}, {high}]" if low is not None and high is not None
                      else f">= {low}" if low is not None else f"<= {high}" if high is not None else "")
            kind = " | ".join(map(str, p["enum"])) if "enum" in p else p["type"]
            table.add_row(Text(p["name"]), Text(kind), "yes" if p["required"] else "",
                          Text("" if p["default"] is None else str(p["default"])), Text(bounds), Text(p["description"]))
        stdout.print(table)
        if names:
            stdout.print(Text(shim["doc"]), highlight=False)
        stdout.print()
    return 0
