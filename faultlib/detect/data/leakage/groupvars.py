"""A pandas GroupBy held in a variable, for the static leakage analysis.

Helpers that compute several statistics per group name the GroupBy once and reduce it many times::

    grouped = both[[col, key]].groupby(key)
    sizes = pd.DataFrame(grouped.size()).reset_index()
    means = pd.DataFrame(grouped.mean()).reset_index()
    highs = pd.DataFrame(grouped.max()).reset_index()

Each reduction is the same statistic as ``both[[col, key]].groupby(key).mean()`` written inline: a count or a
statistic per key over the rows grouped (:mod:`.counts`, :mod:`.design`). The checks that read the GroupBy's text
(which key, which columns, a count per key) see the expression the name was bound to (:func:`bound_groupby`).

A reduction of a GroupBy is a table with one row per group (pandas user guide, "Group by: split-apply-combine",
aggregation returns one row per group key), not a number: its ``max()`` and ``min()`` are per-group features
merged back onto the rows, not the two ends of a range (:mod:`.rangeends` drops only ends passed as numbers).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.samples import groupby_call


def bound_groupby(expr: ast.expr | None, bindings: dict[str, list[ast.expr]], line: int) -> ast.expr | None:
    """The GroupBy expression ``expr`` stands for when it is a name (or a column pick of one, ``grouped['x']``)
    bound to one, else ``None``.

    Args:
        expr: the receiver of a reduction (``grouped`` in ``grouped.mean()``).
        bindings: ``{name: [expressions assigned to it anywhere]}`` of the module
            (:func:`~faultlib.detect.data.leakage.choices.bindings`).
        line: the reduction's line; of several GroupBy bindings, the last one on or before it is taken.

    Returns:
        ``df.groupby(k)`` for ``grouped`` (``df.groupby(k)['x']`` for ``grouped['x']``), or ``None`` when the name is
        also bound to anything that is not a GroupBy (a name that is sometimes a frame stays unknown).
    """
    pick = None
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        pick, expr = expr, expr.value
    if not isinstance(expr, ast.Name):
        return None
    bound = bindings.get(expr.id) or []
    if not bound or any(groupby_call(b) is None for b in bound):
        return None
    before = [b for b in bound if b.lineno <= line]
    chosen = max(before, key=lambda b: b.lineno) if before else bound[0]
    if pick is None:
        return chosen
    return ast.copy_location(ast.Subscript(value=chosen, slice=pick.slice, ctx=ast.Load()), pick)


def grouped_receiver(expr: ast.expr | None, bindings: dict[str, list[ast.expr]], line: int) -> ast.expr | None:
    """``expr`` with a GroupBy variable replaced by what it is bound to (:func:`bound_groupby`); ``expr`` itself
    otherwise."""
    return bound_groupby(expr, bindings, line) or expr


__all__ = ["bound_groupby", "grouped_receiver"]
