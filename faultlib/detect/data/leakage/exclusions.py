"""Feature lists written as "every column but these": the columns they leave out reach no model.

Kaggle solutions often name the model's columns by exclusion::

    remove_features = ['uid', 'first_seen', 'first_seen_week_scaled']
    features = [c for c in list(train) if c not in remove_features]
    model.fit(train[features].iloc[tr], ...)

Iterating a DataFrame (``list(df)``, ``df.columns``, ``df.keys()``) yields its column labels ("pandas API:
DataFrame.__iter__ -- iterate over info axis"), so ``train[features]`` holds every column except those listed. A
statistic written only into a listed column shapes none of the columns selected: it is dropped exactly as by
``train.drop(columns=remove_features)`` (:meth:`.frames.FrameSemantics._dropped_fits`, which also keeps a fit
whose values live on in a column built from the dropped one).

:func:`excluded_columns` reads the syntax: the index of ``df[index]`` is a name bound (every time) to such a
comprehension, its filter ``c not in <names>`` (alone or joined with ``and``), ``<names>`` a literal list of
strings or a name bound (every time) to one; the answer is the names left out, or ``None``.

The fold loop that scores those models splits the whole frame (``folds.split(train, y)``): the fold indices carry
no column's values, and the models read the feature list. :func:`left_out_everywhere` gives the columns every
such list of the module leaves out, so the split reaches the frame without them; a module with no exclusion list
(or a list of the frame's columns written out, which may name the column) keeps every fit at its split.

Issue 17, wave 72: an E-Sun credit-card notebook scaled a first-seen date by its per-week min and max, over each
frame's own rows, into a column its ``remove_features`` list left out of every model.
"""

from __future__ import annotations

import ast
from typing import Any

#: what iterating yields a frame's column labels: ``df.columns``, ``df.keys()``, and the frame itself
_COLUMN_SOURCES = frozenset({"columns", "keys"})


def _iterates_columns(source: ast.expr) -> bool:
    """``list(df)``, ``df.columns``, ``list(df.columns)``, ``df.keys()``, ``sorted(df)``."""
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id in ("list", "sorted") \
            and len(source.args) == 1:
        source = source.args[0]
    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "keys":
        return True
    return isinstance(source, ast.Name) or isinstance(source, ast.Attribute) and source.attr in _COLUMN_SOURCES


def _literal_names(node: ast.expr, bindings: dict[str, list[ast.expr]]) -> set[str] | None:
    """A literal list/tuple/set of strings, or a name bound only to such literals (the names every binding
    shares)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if node.elts and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            return {e.value for e in node.elts}
        return None
    if isinstance(node, ast.Name):
        found = [_literal_names(b, {}) for b in bindings.get(node.id, ())]
        if found and all(f is not None for f in found):
            return set.intersection(*found)
    return None


def _left_out(comp: ast.ListComp, bindings: dict[str, list[ast.expr]]) -> set[str] | None:
    """The names ``[c for c in <columns> if c not in <names>]`` leaves out (``None``: not that form)."""
    if len(comp.generators) != 1 or not isinstance(comp.elt, ast.Name):
        return None
    loop = comp.generators[0]
    if not (isinstance(loop.target, ast.Name) and loop.target.id == comp.elt.id and _iterates_columns(loop.iter)):
        return None
    tests = [t for test in loop.ifs for t in (test.values if isinstance(test, ast.BoolOp) and isinstance(
        test.op, ast.And) else [test])]
    out: set[str] = set()
    for test in tests:
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn) and \
                isinstance(test.left, ast.Name) and test.left.id == comp.elt.id:
            names = _literal_names(test.comparators[0], bindings)
            if names is not None:
                out |= names
    return out or None


def excluded_columns(index: ast.expr, bindings: dict[str, list[ast.expr]]) -> list[str] | None:
    """The columns ``df[index]`` leaves out, ``index`` a name bound (every time) to an exclusion comprehension;
    ``None`` for any other index."""
    if not isinstance(index, ast.Name):
        return None
    found = [_left_out(b, bindings) if isinstance(b, ast.ListComp) else None for b in bindings.get(index.id, ())]
    if not found or any(f is None for f in found):
        return None
    return sorted(set.intersection(*found))


def left_out_everywhere(bindings: dict[str, list[ast.expr]]) -> list[str]:
    """The columns every exclusion comprehension bound to a name in the module leaves out (``[]``: none, or no
    such list)."""
    found = [_left_out(b, bindings) for values in bindings.values() for b in values if isinstance(b, ast.ListComp)]
    found = [f for f in found if f is not None]
    return sorted(set.intersection(*found)) if found else []


class LeftOutColumns:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``_bindings`` and
    ``_dropped_fits``): a fold split's rows without the fits of the columns every feature list leaves out."""

    def _without_left_out(self, data: Any) -> Any:
        if not hasattr(self, "_left_out_everywhere"):
            self._left_out_everywhere = left_out_everywhere(self._bindings)  # type: ignore[attr-defined]
        if not self._left_out_everywhere or data.rows is None:
            return data
        return data.with_(taints=data.taints - self._dropped_fits(data, self._left_out_everywhere))  # type: ignore


__all__ = ["LeftOutColumns", "excluded_columns", "left_out_everywhere"]
