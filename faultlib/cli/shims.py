"""``faultlib shims``: every registered injector with its parameters, types, defaults and docs."""

from __future__ import annotations

import click
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from faultlib.cli.root import app
from faultlib.console import emit_json, printable, state, stdout


#: narrowest column a summary wraps in beside its shim's name (else it goes under the name)
SUMMARY_MIN = 28


def _print_summary(name: str, summary: str) -> None:
    """``name  summary``, the summary wrapped between words under itself (or under the name, when the name
    leaves it too little room)."""
    indent = len(name) + 2 if stdout.width - len(name) - 2 >= SUMMARY_MIN else 2
    lines = Text(printable(summary)).wrap(stdout, max(stdout.width - indent, SUMMARY_MIN))
    first = Text.assemble((name, "bold"), "  " if indent > 2 else "")
    if indent == 2:
        stdout.print(first)
        first = Text("  ")
    for n, line in enumerate(lines):
        line.rstrip()
        stdout.print((first if n == 0 else Text(" " * indent)).append_text(line), highlight=False)


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
        _print_summary(shim["name"], shim["summary"])
        # codes a case copies (names, numbers) stay whole; the description wraps between words in the rest
        table = Table(show_edge=False, box=None, padding=(0, 1), pad_edge=False)
        for column in ("param", "type", "required", "default", "range"):
            table.add_column(column, no_wrap=column not in ("type", "default"), overflow="fold")
        table.add_column("description", overflow="fold")  # folds only a word longer than the column
        for p in shim["params"]:
            low, high = p.get("minimum"), p.get("maximum")
            bounds = (f"[{low}, {high}]" if low is not None and high is not None
                      else f">= {low}" if low is not None else f"<= {high}" if high is not None else "")
            kind = " | ".join(map(str, p["enum"])) if "enum" in p else p["type"]
            table.add_row(Text(p["name"]), Text(kind), "yes" if p["required"] else "",
                          Text("" if p["default"] is None else str(p["default"])), Text(bounds), Text(p["description"]))
        stdout.print(Padding(table, (0, 0, 0, 2)), soft_wrap=False)
        if names:
            stdout.print(Text(shim["doc"]), highlight=False)
        stdout.print()
    return 0
