"""A cut at a fraction of a stacked table's length is a positional split of every row, not the stack's seam.

``all = pd.concat([a, b]); all[:n]; all[n:]`` takes the stacked parts apart again when ``n`` is the first part's
row count (:meth:`~faultlib.detect.data.leakage.frames.FrameSemantics._stack_cut`). A bound computed as a share of
the whole stack is something else::

    data = pd.concat([prices, supplemental])          # two periods of one market, both labelled
    n_fit = int(data.shape[0] * 0.8)                  # 80 % of all the rows
    valid = data.iloc[n_fit:]                         # the last 20 %: rows of both parts, or of the last only

The cut falls wherever 80 % of the rows falls, not at the seam: it is a positional hold-out of the stacked rows
(a time-ordered validation tail), so a fit over the whole stack before it is ``fit_before_split``, not a fit on a
held-out second table (``fit_on_test``). Issue 17, wave 53: an encoder fitted on the training and supplemental
prices stacked, then the last 20 % cut off for early stopping, was reported with the supplemental file as the
held-out rows.

:func:`fraction_bound` recognises the bound: an expression (or a name bound only to expressions) holding a product
with a number strictly between 0 and 1 (``int(0.8 * len(df))``, ``round(n * .75)``) or a quotient by a number above
1 (``len(df) // 5``, ``len(df) * 4 / 5``).
"""

from __future__ import annotations

import ast


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _share(node: ast.expr) -> bool:
    for n in ast.walk(node):
        if not isinstance(n, ast.BinOp):
            continue
        if isinstance(n.op, ast.Mult) and any(0 < (_number(s) or 0) < 1 for s in (n.left, n.right)):
            return True  # 0.8 * len(df)
        if isinstance(n.op, (ast.Div, ast.FloorDiv)) and (_number(n.right) or 0) > 1:
            return True  # len(df) // 5, len(df) * 4 / 5
    return False


def fraction_bound(index: ast.Slice, bindings: dict[str, list[ast.expr]]) -> bool:
    """The one bound of the slice ``index`` is a share of a length (see the module docstring)."""
    bound = index.upper if index.lower is None else index.lower
    if bound is None:
        return False
    if isinstance(bound, ast.Name):
        bound_to = bindings.get(bound.id, [])
        return bool(bound_to) and all(_share(v) for v in bound_to)
    return _share(bound)


__all__ = ["fraction_bound"]
