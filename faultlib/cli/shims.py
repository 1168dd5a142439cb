"""``faultlib shims``: every registered injector with its parameters, types, defaults and docs."""

from __future__ import annotations

import click
from rich.padding import Padding
from rich.text import Text

from faultlib.console import emit_json, printable, state, stdout
from faultlib.text import inline


#: narrowest column a summary wraps in beside its shim's name (else it goes under the name)
SUMMARY_MIN = 28
#: narrowest description column of the parameter table (else one parameter per line, its description under it)
DESCRIPTION_MIN = 24
COLUMNS = ("param", "type", "required", "default", "range", "description")


def _print_summary(name: str, summary: str) -> None:
    """``name  summary``, the summary wrapped between words under itself (or under the name, when the name
    leaves it too little room)."""
    indent = len(name) + 2 if stdout.width - len(name) - 2 >= SUMMARY_MIN else 2
    lines = Text(inline(summary)).wrap(stdout, max(stdout.width - indent, SUMMARY_MIN))
    first = Text.assemble((name, "bold"), "  " if indent > 2 else "")
    if indent == 2:
        stdout.print(first)
        first = Text("  ")
    for n, line in enumerate(lines):
        line.rstrip()
        stdout.print((first if n == 0 else Text(" " * indent)).append_text(line), highlight=False)


def _wrapped(doc: str, width: int) -> list[str]:
    """A docstring reflowed at ``width``: the lines of a paragraph (same indentation, up to a blank line or a list
    item) joined and folded between words, continuations at the paragraph's indentation; a word longer than the
    width stays whole."""
    import re
    import textwrap

    paragraphs: list[tuple[str, list[str]]] = []
    for line in doc.splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        item = re.match(r"\s*([-*]|\d+[.)]|[A-Za-z_][\w.]*( \([^)]*\))?:)\s", line)  # - x, 1. x, name (type): x
        if paragraphs and line.strip() and paragraphs[-1][1] and paragraphs[-1][0] == indent and not item:
            paragraphs[-1][1].append(line.strip())
        else:
            paragraphs.append((indent, [line.strip()] if line.strip() else []))
    lines = []
    for indent, words in paragraphs:
        lines += textwrap.wrap(indent + " ".join(words), width, subsequent_indent=indent, break_long_words=False,
                               break_on_hyphens=False) or [""]
    return lines


def _cells(p: dict) -> list[str]:
    """A parameter's ``param, type, required, default, range, description`` as text."""
    low, high = p.get("minimum"), p.get("maximum")
    bounds = (f"[{low}, {high}]" if low is not None and high is not None
              else f">= {low}" if low is not None else f"<= {high}" if high is not None else "")
    kind = " | ".join(map(str, p["enum"])) if "enum" in p else p["type"]
    return [p["name"], kind, "yes" if p["required"] else "", "" if p["default"] is None else str(p["default"]),
            bounds, p["description"]]


def _print_params(params: list[dict]) -> None:
    """The parameters as a table whose codes (names, numbers) stay whole and whose description wraps between
    words; where that leaves the description under :data:`DESCRIPTION_MIN` columns, one parameter per line
    (``name  type, required, default D, range``) with its description wrapped under it."""
    rows = [_cells(p) for p in params]
    caps = (None, 12, None, 12, None)  # an enum or a list as default wraps at 12 columns
    widths = [min(max([len(h)] + [len(inline(r[i])) for r in rows]), caps[i] or 10**6)
              for i, h in enumerate(COLUMNS[:-1])]
    if stdout.width - 2 - sum(widths) - 2 * len(widths) >= DESCRIPTION_MIN:
        from rich.table import Table

        table = Table(show_edge=False, box=None, padding=(0, 1), pad_edge=False)
        for column, cap in zip(COLUMNS, caps):
            table.add_column(column, no_wrap=column in ("param", "required", "range"), overflow="fold", max_width=cap)
        table.add_column(COLUMNS[-1], overflow="fold")  # folds only a word longer than the column
        for row in rows:
            table.add_row(*(Text(inline(cell)) for cell in row))  # escaped before rich measures it
        stdout.print(Padding(table, (0, 0, 0, 2)), soft_wrap=False)
        return
    for name, kind, required, default, bounds, description in rows:
        about = ", ".join(x for x in (kind, "required" if required else "", default and f"default {default}",
                                      bounds and f"range {bounds}") if x)
        stdout.print(Text.assemble("  ", (inline(name), "bold"), f"  {inline(about)}"), highlight=False)
        for line in _wrapped("      " + inline(description), stdout.width):
            stdout.print(Text(line), highlight=False)


@click.command("shims")
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
        _print_params(shim["params"])
        if names:
            for line in _wrapped(printable(shim["doc"]), stdout.width):
                stdout.print(Text(line), highlight=False)
        stdout.print()
    return 0
