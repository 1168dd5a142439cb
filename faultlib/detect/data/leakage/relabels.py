"""Comprehensions that rename each item of a fitted array, for the static leakage analysis.

Cluster ids and codes are often turned into strings before they become a column::

    ids = KMeans(4).fit_predict(scaled_rows)
    train["cluster"] = [f"cluster_{i}" for i in ids[:len(train)]]

The list has one item per item of ``ids`` (Python language reference, "Displays for lists, sets and dictionaries":
the element is evaluated once for each item the ``for`` clause yields), and each item is a function of that id
alone. The column therefore holds what the clustering learnt, row for row: a KMeans fitted on the training and the
test rows stacked reaches every model that reads the column (wave 59: a house-prices pipeline wrote it to the CSV
its model scripts read, and the fit was reported as an ``info`` note: "its output reaches no model").

:func:`relabels_each_item` recognises such a comprehension from its syntax: one ``for`` over an expression that is
not a table's labels (``.columns``, ``.index``, ``.keys()``...), no ``if`` (a filter drops items, so positions no
longer match), a target that is one name, and an element that reads no other name than that one and a few
built-in conversions (``str``, ``int``, ``float``, ``round``, ``abs``, ``bool``). The analysis
(:mod:`.embeddings`) then gives the list the rows and the fits of the array it walks.
"""

from __future__ import annotations

import ast

#: built-in conversions an element may apply to the item
_CONVERSIONS = frozenset({"str", "int", "float", "round", "abs", "bool"})
#: attributes and methods that give a table's labels, not its values
_LABELS = frozenset({"columns", "index", "keys", "items", "dtypes", "feature_names_in_"})


def _walks_labels(expr: ast.expr) -> bool:
    node = expr.func if isinstance(expr, ast.Call) else expr
    return isinstance(node, ast.Attribute) and node.attr in _LABELS


def relabels_each_item(node: ast.expr) -> bool:
    """Whether ``node`` is a list or generator comprehension that maps each item to a value of that item alone."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
        return False
    gen = node.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name) or _walks_labels(gen.iter) or isinstance(
            gen.iter, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return False
    item = gen.target.id
    names = [n for n in ast.walk(node.elt) if isinstance(n, ast.Name)]
    called = {id(n.func) for n in ast.walk(node.elt) if isinstance(n, ast.Call)}
    uses_item = any(n.id == item for n in names)
    return uses_item and all(n.id == item or (id(n) in called and n.id in _CONVERSIONS) for n in names)


__all__ = ["relabels_each_item"]
