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
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.values import Data

__all__ = ["BlockUnpacking", "Blocks", "empty_list"]


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
