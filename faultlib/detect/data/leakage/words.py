"""Rows said in plain words, for the static leakage analysis's messages.

The analysis names a set of rows by its table and the selections that led to it (``table[filter@7][split@8:test]``:
:meth:`faultlib.detect.data.leakage.values.Rows.describe`). That notation stays in ``--json`` (``fit_rows``,
``held_out_rows``: a contract); a message is read by people, and says the same in words, with lines as the user
sees them (``cell 4 line 2``, ``prep.py line 9`` in a session)::

    table[filter@7][split@8:test]  ->  the test part of the split on line 8, of the rows of `table` selected on line 7
    X[fold@12:test] + T            ->  the test folds of the cross-validation on line 12, of `X`; and `T`
"""

from __future__ import annotations

from typing import Callable

from faultlib.detect.data.leakage.values import RowSet, Rows, Step, parts

_PART = {"test": "test", "train": "training", "val": "validation", "valid": "validation"}


def _step(step: Step, where: Callable[[int], str]) -> str:
    if step.kind == "split":
        return f"the {_PART.get(str(step.part), step.part)} part of the split on {where(step.line)}"
    if step.kind == "fold":
        return f"the {_PART.get(str(step.part), step.part)} folds of the cross-validation on {where(step.line)}"
    if step.kind == "slice":
        lo = "" if step.lo is None else step.lo
        hi = "" if step.hi is None else step.hi
        return f"the slice [{lo}:{hi}]" + (f" taken on {where(step.line)}" if step.line else "")
    if step.part == "sample":
        return f"a random sample drawn on {where(step.line)}"
    if step.part == "shuffle":
        return f"the rows shuffled on {where(step.line)}"
    return f"the rows selected on {where(step.line)}"


def _one(rows: Rows, where: Callable[[int], str]) -> str:
    text = f"`{rows.root.name}`"
    if not rows.steps:
        return f"the rows of {text}"
    for step in rows.steps:
        if step.kind == "filter" and step.part not in ("sample", "shuffle") and text.startswith("`"):
            text = f"the rows of {text} selected on {where(step.line)}"
        else:
            text = f"{_step(step, where)}, of {text}"
    return text


def rows_in_words(rows: RowSet | None, where: Callable[[int], str]) -> str:
    """``rows`` in plain words; ``where(line)`` says a line of the analysed text as the user sees it
    (:meth:`faultlib.detect.data.leakage.source.SourceMap.describe`)."""
    found = parts(rows)
    if not found:
        return "rows it cannot name"
    return "; and ".join(_one(p, where) for p in found)


class PlainRows:
    """A mixin of the static analyzer (needs ``smap``): ``self._words(rows)`` for messages."""

    def _words(self, rows: RowSet | None) -> str:
        return rows_in_words(rows, self.smap.describe)  # type: ignore[attr-defined]


__all__ = ["PlainRows", "rows_in_words"]
