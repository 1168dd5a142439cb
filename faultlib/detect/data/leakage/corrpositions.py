"""The target's row of a correlation matrix read by position, for the static leakage analysis.

Course code ranks features by their correlation with the label without naming the label's column: it appends the
label as the last column and reads the last row (or column) of the matrix,

    whole = pd.concat([X, y], axis=1)
    strength = whole.corr().iloc[-1, :-1]          # each feature's r with y
    keep = strength.abs().sort_values(ascending=False).index[:k]

which is :mod:`~faultlib.detect.data.leakage.relevance`'s ``frame.corr()['t']`` spelled by position: pandas'
``DataFrame.corr`` is symmetric with rows and columns in the frame's column order (pandas API reference,
``DataFrame.corr``: "pairwise correlation of columns"), and ``pd.concat(objs, axis=1)`` puts the columns of
``objs`` in the order given (pandas API reference, ``concat``), so row ``-1`` and column ``-1`` are the label's.

:func:`target_position_corrs` gives the ``id`` of each such ``.corr()`` call: read with ``.iloc`` at row ``-1``
or column ``-1``, on ``pd.concat([..., <label>], axis=1)`` itself or on a name bound to it, the label being a
variable or column the caller's predicate names (the script's target, a variable named for it). The relevance
rule then treats it as the supervised score it is.

Not counted: a matrix of a frame whose last column is a feature (``pd.concat([X, other], axis=1)``), a concat along
rows (``axis=0``, the default: the rows of two tables, no label column) and the whole matrix (a heat map).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from faultlib.pyflow.walk import walk_once


def _last(node: ast.expr) -> bool:
    """``-1`` (an ``ast.UnaryOp`` of ``1`` or a constant)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return isinstance(node.operand, ast.Constant) and node.operand.value == 1
    return isinstance(node, ast.Constant) and node.value == -1


def _label_last(call: ast.expr, is_label: Callable[[ast.expr], bool]) -> bool:
    """``pd.concat([..., label], axis=1)``: the label becomes the frame's last column."""
    if not (isinstance(call, ast.Call) and (isinstance(call.func, ast.Attribute) and call.func.attr == "concat"
                                            or isinstance(call.func, ast.Name) and call.func.id == "concat")):
        return False
    by_column = any(k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value in (1, "columns")
                    for k in call.keywords) or len(call.args) > 1 and isinstance(call.args[1], ast.Constant) and \
        call.args[1].value in (1, "columns")
    parts = call.args[0] if call.args else None
    return by_column and isinstance(parts, (ast.List, ast.Tuple)) and bool(parts.elts) and is_label(parts.elts[-1])


def target_position_corrs(tree: ast.Module, is_label: Callable[[ast.expr], bool]) -> frozenset[int]:
    """``id`` of each ``.corr()`` call whose row or column ``-1`` is read and whose frame ends with the label
    (see the module docstring)."""
    appended = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and _label_last(n.value, is_label)
                for t in n.targets if isinstance(t, ast.Name)}
    out: set[int] = set()
    for n in walk_once(tree):
        if not (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "iloc"):
            continue
        call = n.value.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "corr"
                and not call.args):
            continue
        frame = call.func.value
        if not (isinstance(frame, ast.Name) and frame.id in appended or _label_last(frame, is_label)):
            continue
        index = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        if _last(index[0]) or len(index) > 1 and _last(index[1]):
            out.add(id(call))
    return frozenset(out)


__all__ = ["target_position_corrs"]
