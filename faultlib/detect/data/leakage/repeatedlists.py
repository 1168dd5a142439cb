"""Lists written with a repetition, for the static leakage analysis: ``[majority] + [minority] * k``.

Course projects on churn and credit data oversample the rarer class with a helper that lists its rows ``k`` times
and stacks the list::

    def upsample(features, target, repeat):
        features_zeros, features_ones = features[target == 0], features[target == 1]
        upsampled = pd.concat([features_zeros] + [features_ones] * repeat)

Python's ``[a] * k`` is the list holding ``a`` ``k`` times (Python language reference, "Binary arithmetic
operations": sequence repetition), so the stack lists the minority rows again and again, what
``pd.concat([df, df])`` does to every row: oversampling by hand (:mod:`.rowdraws`, :mod:`.stacks`). Done before a
cross-validation, copies of one customer land in a training fold and in its validation fold (issue 17 wave 88: a
bank-churn notebook ran ``GridSearchCV`` on the upsampled rows and printed ``best_score_``).

:func:`written_out` gives the items of such a list as the stack lists them -- a repeated part's items twice (a
count of ``0`` or ``1`` written as a literal keeps them none or once; any other count repeats them) -- and
:class:`RepeatedLists` evaluates the expression to the same items, so the two line up item by item. Only lists
written out in the expression are read (``[a] + parts * 2`` with ``parts`` a name is not).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Tup


def _times(node: ast.expr) -> int:
    """How many times a repeated list's items are listed: a literal 0 or 1 as written, any other count twice."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return min(max(node.value, 0), 2)
    return 2


def written_out(node: ast.expr) -> list[ast.expr] | None:
    """The items of a list literal, of a sum of them and of a list literal times a count (``[a] + [b] * k``), a
    repeated list's items listed again; ``None`` for anything else (a starred item, a name, a call)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in node.elts) else list(node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = written_out(node.left), written_out(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for items, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(items, (ast.List, ast.Tuple)):
                listed = written_out(items)
                return None if listed is None else listed * _times(count)
    return None


def repeats(node: ast.expr) -> bool:
    """``node`` is a list written with a repetition (``[b] * k``, alone or in a sum): :func:`written_out` holds it."""
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (
        isinstance(n.left, (ast.List, ast.Tuple)) or isinstance(n.right, (ast.List, ast.Tuple))) for n in ast.walk(node)) \
        and written_out(node) is not None


class RepeatedLists:
    """Evaluates a list written with a repetition to its items (a mixin of the analyzer, before the interpreter)."""

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        if isinstance(node, ast.BinOp) and repeats(node):
            items = written_out(node)
            values = {id(e): self._expr(e, frame) for e in dict.fromkeys(items)}  # each written item evaluated once
            return Tup(tuple(values[id(e)] for e in items))
        return super()._expr(node, frame)  # type: ignore[misc]


__all__ = ["RepeatedLists", "repeats", "written_out"]
