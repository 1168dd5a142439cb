"""Bin edges read off a ``qcut``/``cut`` and typed back by hand, for the static leakage analysis.

A common tutorial step: ``df['FareBand'] = pd.qcut(df['Fare'], 4)`` is shown grouped by the target, then the
printed edges are copied into masks (``df.loc[(df['Fare'] > 7.9) & (df['Fare'] <= 14.4), 'FareNum'] = 1``) and the
band column is dropped. The new column holds no value the analysis can trace to the ``qcut``, yet its edges are
the ``qcut``'s: quantiles of every row it saw. When those rows include held-out rows (the whole table before a
split, train and test stacked), the hand-made band is fitted on them.

So a binning of column ``C`` is *copied* when, after it, a column is assigned under a mask that compares ``C``
with a number (``X.loc[X['C'] <= k, 'new'] = v``); dropping the band column then does not drop the binning's fit
from the table (:meth:`~faultlib.detect.data.leakage.frames.FrameSemantics._dropped_fits`). Edges typed without a
binning before them (a domain's own cut-offs) are not a fit: there is nothing to copy.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_BINNINGS = frozenset({"qcut", "cut"})


def column_of(node: ast.expr) -> str | None:
    """``df['C']`` or ``df.C``: the column's name."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return None


def _thresholds(mask: ast.expr) -> set[str]:
    """Columns compared with a number in ``mask``."""
    out: set[str] = set()
    for n in ast.walk(mask):
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            numbers = [s for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, (int, float))
                       and not isinstance(s.value, bool)]
            if numbers:
                out.update(c for c in (column_of(s) for s in sides) if c is not None)
    return out


def copied_bands(tree: ast.Module) -> frozenset[int]:
    """Lines of the ``qcut``/``cut`` calls whose column is later cut by hand with numbers (see the module
    docstring)."""
    cut_at: dict[str, list[int]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript):
            target = n.targets[0]
            if isinstance(target.value, ast.Attribute) and target.value.attr == "loc" and \
                    isinstance(target.slice, ast.Tuple) and len(target.slice.elts) == 2:
                for col in _thresholds(target.slice.elts[0]):
                    cut_at.setdefault(col, []).append(n.lineno)
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _BINNINGS and n.args:
            col = column_of(n.args[0])
            if col is not None and any(line > n.lineno for line in cut_at.get(col, [])):
                out.add(n.lineno)
    return frozenset(out)


__all__ = ["column_of", "copied_bands"]
