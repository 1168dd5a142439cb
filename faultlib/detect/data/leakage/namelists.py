"""A list of column names is not a set of rows, for the static leakage analysis.

``cat_cols = df.select_dtypes('object').columns.tolist()`` holds the names of some columns. Printing a few of them
(``cat_cols[:10]``) slices that list of names; reading the slice as a row selection would make the list *data*
for the rest of the analysis, and ``df[cat_cols]`` would then read as rows chosen by it (a subset of ``df``), not
as ``df``'s columns: a fit on it would no longer cover the rows a later cross-validation scores.

A value the analysis knows nothing of yet (an opaque value not yet used as data) whose every assignment in the
module is a list of names is such a list: subscripting it gives names, not rows, and leaves it untouched. A list
of names is, syntactically (:func:`names_value`): a frame's ``.columns`` (``df.select_dtypes(...).columns``),
through ``.columns.values``/``tolist()``/``to_numpy()``/``drop``/``difference``/``union``/``intersection``,
``list``/``sorted``/``set``, a slice, a comprehension over one, a sum of them and literal strings, or a name
already known to hold names (:func:`.params.column_names`), or ``np.array`` of one. A name bound once from
``.columns`` and once from data stays data. Names picked from such a list by a fitted ranking
(``names[np.argsort(selector.feature_importances_)]``) carry that fit, as ``X.columns[rfe.support_]`` does.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.values import Data, MaybeData, maybe_data
from faultlib.pyflow.values import UNKNOWN, Tup


_NAME_METHODS = frozenset({"tolist", "to_list", "to_numpy", "drop", "difference", "union", "intersection", "copy"})


def names_value(expr: ast.expr, names: set[str], depth: int = 6) -> bool:
    """``expr`` evaluates to column names (see the module docstring); ``names``: the names known to hold them."""
    if depth < 0:
        return False
    if isinstance(expr, ast.Attribute):  # X.columns.values: the same names as an array (wave 75); not table.values
        return expr.attr == "columns" or expr.attr == "values" and isinstance(expr.value, ast.Attribute) and \
            expr.value.attr == "columns"
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, ast.Subscript):
        return names_value(expr.value, names, depth - 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _NAME_METHODS:
        return names_value(expr.func.value, names, depth - 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "sorted", "set",
                                                                                        "tuple") and expr.args:
        return names_value(expr.args[0], names, depth - 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in (
            "array", "asarray") and isinstance(expr.func.value, ast.Name) and expr.func.value.id in ("np", "numpy") \
            and expr.args:
        return names_value(expr.args[0], names, depth - 1)  # np.array(X.T.columns): the names as an array
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return names_value(expr.generators[0].iter, names, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.BitOr, ast.BitAnd)):
        sides = [expr.left, expr.right]
        return any(names_value(x, names, depth - 1) for x in sides) and all(
            names_value(x, names, depth - 1) or _strings(x) for x in sides)
    return False


def _strings(expr: ast.expr) -> bool:
    """``['id', 'target']``, ``{'id'}``: literal strings."""
    return isinstance(expr, (ast.List, ast.Tuple, ast.Set)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts)


class ColumnNameLists:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_bindings``, ``_column_names``,
    ``_expr`` and ``_stacked_subscript``)."""

    def _special_subscript(self, base: Any, index_node: ast.expr, frame: Any) -> Any:
        """A subscript with a meaning of its own: of a column-name list (names, see the module docstring), else
        :meth:`~.embeddings.EmbeddingSemantics._stacked_subscript`; ``None``: an ordinary one."""
        bound = self._bindings.get(base.name, ()) if isinstance(base, MaybeData) and not base.used_as_data else ()
        if bound and all(names_value(b, self._column_names) for b in bound):
            index = maybe_data(self._expr(index_node, frame))  # what the index reads is still read
            # names[np.argsort(relief.feature_importances_)]: the names a fitted ranking picked carry its fit, as
            # X.columns[rfe.support_] does (wave 70: genes kept by a Relief ranking before the cross-validation)
            fits = frozenset(f for f in index.taints if chooses(f)) if index is not None and index.rows is None \
                else frozenset()
            return Data(None, fits) if fits else UNKNOWN
        return self._stacked_subscript(base, index_node, frame)


def chosen_names(index: Tup, as_data: Any) -> Data | None:
    """``X[[name]]``, ``X[picked]`` with ``picked = [list(skb.get_feature_names_out())[0], ...]``: a list of column
    names, some of them chosen by a fitted selector, carries those fits (as ``X[skb.get_feature_names_out()]``
    does); ``None`` when no item is a fit's choice (names typed in, rows).

    Args:
        index: the list or tuple used as the index.
        as_data: the analysis' ``maybe_data`` (an item as data, or ``None``).
    """
    fits = frozenset(f for d in (as_data(i) for i in index.items) if d is not None and d.rows is None
                     for f in d.taints if chooses(f))
    return Data(None, fits) if fits else None


__all__ = ["ColumnNameLists", "chosen_names", "names_value"]
