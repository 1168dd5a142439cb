"""Which grouping says that rows repeat one entity, for the static leakage analysis's ``entity_across_split``.

A script that groups by ``patient_id`` tells that a patient has several rows; split row by row, a patient lands on
both sides (:mod:`~faultlib.detect.data.leakage.design`). A bare ``subject`` or ``session`` column is ambiguous:
the subject of a study, or the topic of a news article (``politics``, ``worldnews``). A grouping that only counts
rows per value to print or plot them (``df.groupby(['subject'])['text'].count().plot(kind='bar')``) is a look at a
category's size, the same as ``value_counts()``: for such a bare name it does not make the column an entity. A
named id (``subject_id``, ``patient``-``_id``) still does, and so does any grouping whose result is used (features
per entity, ``transform``, ``agg``).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: reductions that count rows per group (no feature comes of them)
_COUNTS = frozenset({"count", "size", "nunique", "value_counts"})
#: what may follow a count in a display (``.sort_values().plot(kind='bar')``)
_DISPLAY = frozenset({"plot", "sort_values", "sort_index", "head", "tail", "reset_index", "to_frame", "bar", "barh",
                      "pie", "hist"})
_SHOW = frozenset({"print", "display"})


def display_only_groupbys(tree: ast.Module) -> frozenset[int]:
    """Ids of ``groupby`` calls whose result is only counted and shown: the whole expression is a statement, or
    the argument of ``print``/``display``, and after the ``groupby`` come column picks, one count, and display
    calls."""
    tops: list[ast.expr] = [n.value for n in walk_once(tree) if isinstance(n, ast.Expr)]
    tops += [a for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in _SHOW for a in n.args]
    out: set[int] = set()
    for top in tops:
        chain, node, counted = [], top, False
        while True:  # walk down the method chain: top is the last call
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                chain.append(node.func.attr)
                if node.func.attr == "groupby":
                    names = chain[:-1]
                    counted = any(n in _COUNTS for n in names) and all(n in _COUNTS | _DISPLAY for n in names)
                    if counted:
                        out.add(id(node))
                    break
                node = node.func.value
            elif isinstance(node, (ast.Subscript, ast.Attribute)):
                node = node.value  # ['text'], .plot.bar
            else:
                break
    return frozenset(out)


__all__ = ["display_only_groupbys"]
