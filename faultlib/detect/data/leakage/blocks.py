"""A list of row blocks built by appends, and what unpacking it gives back, for the static leakage analysis.

A helper that transforms several tables together often stacks them, transforms the stack and hands the pieces
back as a list built in a loop::

    def ranks(frames, cols):
        both = pd.concat(frames)
        both[cols] = ...                     # a statistic of every stacked row
        out, start = [], 0
        for f in frames:
            out.append(both[start:start + len(f)])
            start += len(f)
        return out

    train, test = ranks([train, test], cols)

:class:`~faultlib.detect.data.leakage.frames.FrameSemantics` keeps such a list as one :class:`Blocks` value: the
rows of every block and the fits that shaped them. Unpacking it (``train, test = out``) gives each name one
block, i.e. an item of the list, exactly what ``out[0]`` and ``out[1]`` give: some of those rows, carrying
every fit that shaped the stack (:class:`BlockUnpacking`). Without this the names were unknown values and the
statistic's path to the model was lost. Unpacking any other array-like (a frame iterates its column labels) is
left to the interpreter.

A list written with items before the loop that appends to it (``blocks = [base]``, then ``blocks.append(feature)``
under an ``if``) holds those items too: the first append and the join after a branch that did not append keep
what the literal held (:func:`listed_blocks`), so a fit that shaped an appended block is not lost where the list
was not empty.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.values import Data

__all__ = ["BlockUnpacking", "Blocks", "appended_to_listed", "empty_list", "joined_blocks", "listed_blocks"]


@dataclass(frozen=True)
class Blocks(Data):
    """A Python list whose items are blocks of rows appended one by one (rows: every block's rows)."""


class BlockUnpacking:
    """``a, b = blocks``: each name gets one item of the list (see the module docstring)."""

    def _bind(self, target: ast.expr, value: Any, frame: Any, line: int) -> None:
        if isinstance(value, Blocks) and isinstance(target, (ast.Tuple, ast.List)) and not any(
                isinstance(e, ast.Starred) for e in target.elts):
            held = Data(value.rows, value.taints, value.test)
            for i, elt in enumerate(target.elts):
                item = ast.copy_location(ast.Constant(value=i), target)
                self._bind(elt, self._subscript_value(held, item, frame, line), frame, line)  # type: ignore[attr-defined]
            return
        super()._bind(target, value, frame, line)  # type: ignore[misc]


def empty_list(value: Any) -> bool:
    """``[]`` as the interpreter holds it (an empty tuple value): a list no block was appended to yet."""
    from faultlib.pyflow.values import Tup

    return isinstance(value, Tup) and not value.items


def listed_blocks(value: Any) -> "Blocks | None":
    """A list literal's data items (``[base, extra]`` as the interpreter holds it: a tuple value) as one
    :class:`Blocks`: their rows (the first item's, other rows joined) and every fit that shaped them; ``None`` for a
    value that is not such a list or holds no data."""
    from faultlib.detect.data.leakage.values import RowUnion, parts
    from faultlib.pyflow.values import Tup

    if not isinstance(value, Tup):
        return None
    datas = [v for v in value.items if isinstance(v, Data)]
    if not datas:
        return None
    mine: tuple = ()
    for d in datas:
        mine += tuple(p for p in parts(d.rows) if p not in mine)
    rows = None if not mine else datas[0].rows if len(mine) == len(parts(datas[0].rows)) else RowUnion(mine)
    return Blocks(rows, frozenset().union(*(d.taints for d in datas)), False)


def appended_to_listed(listed: "Blocks", block: Data) -> "Blocks":
    """``columns = [base]; columns.append(block)``: the list after one more block. A block computed from the same
    tables as the literal's items (a column of features built from those rows, maybe through a stack that
    included other rows and was cut back to them: ``both[both['part'] == 1]``) is a column block of those rows:
    the list keeps the literal's rows and takes the block's fits. A block of other tables joins its rows (a list
    of row blocks to stack)."""
    from faultlib.detect.data.leakage.values import RowUnion, parts

    mine = parts(listed.rows)
    roots = {p.root for p in mine}
    theirs = parts(block.rows)
    if not theirs or listed.rows is None or any(p.root in roots for p in theirs):
        return Blocks(listed.rows if listed.rows is not None else block.rows, listed.taints | block.taints, False)
    return Blocks(RowUnion(mine + tuple(p for p in theirs if p not in mine)), listed.taints | block.taints, False)


def joined_blocks(a: Any, b: Any) -> "Blocks | None":
    """Where two branches meet, a list appended to in one (:class:`Blocks`) and its literal in the other
    (``blocks = [base]``, an ``if`` that did not append): the literal's items and the blocks together; ``None`` for
    any other pair."""
    if isinstance(a, Blocks) and (lb := listed_blocks(b)) is not None:
        return Blocks(a.rows if a.rows is not None else lb.rows, a.taints | lb.taints, a.test)
    if isinstance(b, Blocks) and (la := listed_blocks(a)) is not None:
        return Blocks(b.rows if b.rows is not None else la.rows, b.taints | la.taints, b.test)
    return None
