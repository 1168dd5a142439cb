"""Column names built as text, for the static leakage analysis.

``df[key]`` selects rows when ``key`` is a mask or an index array and a column when it is a label (pandas user
guide, "Indexing and selecting data": ``[]`` on a DataFrame takes a column label, a list of labels or a boolean
Series). A key the program *formats as text* is a label: no mask or index array is a ``str``. Kaggle feature
loops name their columns that way::

    for i in range(200):
        col = 'var_%d' % i
        new_col = f'{col}_count'
        train[new_col] = train[col].map(counts)

so ``train[new_col].mean()`` is a statistic of every row of ``train``, not of a row subset. Text here is a string
literal's ``%`` formatting, an f-string, ``'...'.format(...)`` or ``+`` with a string literal on one side, directly
or through a name whose every assignment in the module is such text.
"""

from __future__ import annotations

import ast


def _literal_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def formatted_text(node: ast.expr, bindings: dict[str, list[ast.expr]], depth: int = 3) -> bool:
    """``node`` evaluates to a ``str`` built from text (see the module docstring)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _literal_str(node.left):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return any(_literal_str(side) or formatted_text(side, bindings, depth) for side in (node.left, node.right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" and \
            _literal_str(node.func.value):
        return True
    if depth and isinstance(node, ast.Name):
        assigned = bindings.get(node.id, [])
        return bool(assigned) and all(_literal_str(b) or formatted_text(b, bindings, depth - 1) for b in assigned)
    return False


__all__ = ["formatted_text"]
