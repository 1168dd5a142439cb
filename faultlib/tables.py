"""Tables whose last column is prose, printed so that no word that fits is folded: a table where the prose column
gets room, else one row per block with the prose wrapped between words under its codes.

rich's ``overflow="fold"`` wraps a cell between words and folds only a word longer than its column; at 80
columns, beside codes and file locations that must stay whole, a message column is ~20 wide, so ordinary words
(``pandas.DataFrame.to_csv``) were cut in two. Here the prose column is used only when it gets at least
:data:`PROSE_MIN` columns with every other cell whole; otherwise each row prints as
``code  code  location`` and its prose, indented, wrapped at the terminal's width (the layout ``faultlib
shims`` uses for its parameters).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

#: the narrowest prose column a table gives a message (else one row per block)
PROSE_MIN = 40
#: the indentation of the prose under its row's codes in the block layout
INDENT = 4


def print_prose_table(headers: list[str], rows: list[list[Text]]) -> None:
    """Print ``rows`` (cells as :class:`~rich.text.Text`, user text already escaped) under ``headers``: every
    cell but the last whole (codes, names, locations), the last (prose) wrapped between words.

    Raises:
        ValueError: a row with another number of cells than ``headers``.
    """
    from faultlib.console import stdout

    if any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row needs {len(headers)} cells")
    widths = [max([len(h)] + [r[i].cell_len for r in rows]) for i, h in enumerate(headers[:-1])]
    overhead = 3 * len(headers) - 1  # a space either side of each cell, a rule between cells
    if stdout.width - overhead - sum(widths) >= PROSE_MIN:
        table = Table(show_edge=False)
        for header, width in zip(headers, widths):
            table.add_column(header, no_wrap=True, min_width=width)
        table.add_column(headers[-1], overflow="fold")  # folds only a word longer than the column
        for row in rows:
            table.add_row(*row)
        stdout.print(table)
        return
    width = max(stdout.width - INDENT, 20)
    for row in rows:
        head = Text("  ").join(cell for cell in row[:-1] if cell.plain)
        stdout.print(head, highlight=False)
        for line in row[-1].wrap(stdout, width):
            line.rstrip()
            stdout.print(Text(" " * INDENT).append_text(line), highlight=False)


__all__ = ["INDENT", "PROSE_MIN", "print_prose_table"]
