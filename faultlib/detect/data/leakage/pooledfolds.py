"""A data set's predefined folds pooled and split again at random, for the static leakage analysis.

Some data sets ship their own folds and ask that they be kept: UrbanSound8K's ``fold1`` ... ``fold10`` hold the
slices of one field recording (freesound id) in one fold, and its authors warn that reshuffling the data and
splitting at random puts slices of one recording in training and test and inflates the scores (Salamon, Jacoby &
Bello, "A Dataset and Taxonomy for Urban Sound Research", ACM MM 2014; the data set's README: "please do not
reshuffle the data"). ESC-50 ships five folds with the same warning. A program that loops over the folds, pools
what each gives and draws a random test part throws that grouping away (Kapoor & Narayanan, Patterns 2023,
"non-independence between train and test samples"). The house rule for ``entity_across_split``, issue 17 wave 94.

What the program must show, all of it, for :func:`pooled_fold_splits` to report a row-wise split
(:func:`~.fileentities.row_splits`) that comes after the pooling loop:

* a list or array literal of at least three fold names (``'fold1'``, ``'fold_2'``, ...), bound to a name;
* a loop over that name that appends or extends a list made before the loop: the folds are pooled;
* the fold names are read nowhere but as the iterable of such loops (no ``folds[i]``, no ``fold == test_fold``,
  no ``folds.remove``): no fold is held out as the data set intends;
* no ``groups=``, no group splitter and no ``PredefinedSplit`` anywhere.

* no fold held out by the rows' own fold: no comparison with a fold name (``table["fold"] == "fold10"``) or of a
  fold column (``meta.fold != 10``, ``meta["fold"].isin(test_folds)``: UrbanSound8K's metadata keeps each slice's
  fold), which holds whole folds out by hand; a random split after it only cuts the training folds.

Silent: leave-one-fold-out loops (a fold compared or indexed), a fold held out through the fold of each row, a
program without the fold names, a grouped split.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.detect.data.leakage.fileentities import grouped, row_splits
from faultlib.detect.data.leakage.targets import node_name
from faultlib.pyflow.walk import walk_once

_FOLD = re.compile(r"^fold[_-]?\d+$", re.IGNORECASE)


def _fold_list(value: ast.expr) -> bool:
    """A list/tuple literal of three or more fold names, maybe wrapped in ``np.array``/``list``."""
    if isinstance(value, ast.Call) and node_name(value.func) in ("array", "asarray", "list", "tuple") and value.args:
        value = value.args[0]
    return isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) >= 3 and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) and _FOLD.match(e.value) for e in value.elts)


def _fold_column(node: ast.expr) -> bool:
    """``t["fold"]``, ``t.fold``: a table's fold column."""
    key = node.slice.value if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) else \
        node.attr if isinstance(node, ast.Attribute) else None
    return isinstance(key, str) and key.lower() == "fold"


def _rows_fold_held_out(node: ast.AST) -> bool:
    """``node`` compares a fold name or a fold column (``t["fold"] == "fold10"``, ``t.fold != 10``,
    ``t.fold.isin(test_folds)``)."""
    if isinstance(node, ast.Compare):
        return any(_fold_column(x) or isinstance(x, ast.Constant) and isinstance(x.value, str) and _FOLD.match(
            x.value) for x in [node.left, *node.comparators])
    return isinstance(node, ast.Call) and node_name(node.func) == "isin" and isinstance(node.func, ast.Attribute) and \
        _fold_column(node.func.value)


def _pools(loop: ast.For, tree: ast.AST) -> bool:
    """The loop appends to or extends a list first bound before the loop."""
    before = {e.id for n in walk_once(tree) if isinstance(n, ast.Assign) and n.lineno < loop.lineno
              for t in n.targets for e in ast.walk(t) if isinstance(e, ast.Name)}
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               and isinstance(n.func.value, ast.Name) and n.func.value.id in before for n in ast.walk(loop))


def pooled_fold_splits(tree: ast.Module) -> list[tuple[int, int]]:
    """``(split line, line of the pooling loop)`` (see the module docstring)."""
    names = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and _fold_list(n.value)
             for t in n.targets if isinstance(t, ast.Name)}
    if not names or grouped(tree) or any(node_name(n) == "PredefinedSplit" for n in walk_once(tree)
                                         if isinstance(n, (ast.Name, ast.Attribute))):
        return []
    loops = [n for n in walk_once(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Name) and
             n.iter.id in names]
    iterables = {id(loop.iter) for loop in loops}
    if any(isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load) and id(n) not in iterables
           for n in walk_once(tree)):
        return []
    fold_vars = {loop.target.id for loop in loops if isinstance(loop.target, ast.Name)}
    if any(isinstance(n, ast.Compare) and any(isinstance(x, ast.Name) and x.id in fold_vars
                                             for x in [n.left, *n.comparators]) or _rows_fold_held_out(n)
           for n in walk_once(tree)):
        return []
    pooling = [loop.lineno for loop in loops if _pools(loop, tree)]
    if not pooling:
        return []
    first = min(pooling)
    return sorted({(split.lineno, first) for split in row_splits(tree) if split.lineno > first})


def pooled_fold_reports(tree: ast.Module, smap: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """:func:`pooled_fold_splits` as ``(line, message, evidence)`` of ``entity_across_split`` warnings."""
    said = ("the data set's predefined folds are pooled on {} and split again at random on {}: the folds keep the "
            "pieces of one recording or source together, a random split puts them on both sides. Fix: hold out "
            "whole folds (leave-one-fold-out or PredefinedSplit)")
    return [(line, said.format(smap.describe(pooled_at), smap.describe(line)), {"pooled_at": smap.where(pooled_at)})
            for line, pooled_at in pooled_fold_splits(tree)]


__all__ = ["pooled_fold_reports", "pooled_fold_splits"]
