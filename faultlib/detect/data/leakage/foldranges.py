"""Rows held out by name inside a loop counted over folds: one fold's validation rows, not a test set.

Hand-written cross-validation often counts its folds and cuts each fold's rows with a mask of its own::

    for i in range(num_folds):
        start, end = i * fold_size, (i + 1) * fold_size
        fit_rows = feats[(days < start) | (days >= end + gap)]
        test_rows = feats[(days >= start) & (days < end)]    # fold i's held-out block

No splitter is called, so the analysis knows these rows are held out only by their name (``test_rows``). A
statistic computed on every row before the loop then reaches each fold's held-out block: the same leak as a fit
before ``for tr, te in KFold(...).split(X)``, i.e. ``fit_outside_cv`` ("every fold is scored on rows that shaped
its features"), not ``fit_before_split`` (one test set). Issue 17, stop 47: a market-data notebook's purged
date-block folds, whose per-stock statistics were reported under the wrong kind (8 alarms).

:func:`counted_fold_loop` answers, for the line that names the held-out rows, whether the innermost ``for`` loop
around it counts folds: ``for i in range(n)`` (or ``enumerate``/``tqdm`` of one) where the range's bound or the
loop variable is named for folds (``num_folds``, ``NFOLDS``, ``n_splits``, ``fold``, ``k_fold``).
"""

from __future__ import annotations

import ast
import re

from faultlib.pyflow.walk import nodes_of

#: a name that counts or indexes folds
_FOLD_NAME = re.compile(r"fold|n_?splits|^k$|^cv$", re.IGNORECASE)
#: wrappers around a range that keep its items (a progress bar, an enumeration)
_WRAPPERS = frozenset({"tqdm", "trange", "enumerate", "list"})


def _range_call(node: ast.expr) -> ast.Call | None:
    """``range(n)`` itself, or inside ``tqdm(range(n))``/``enumerate(range(n))``; ``None`` otherwise."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _WRAPPERS and node.args:
        if node.func.id == "trange":
            return node
        node = node.args[0]
    return node if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" \
        else None


def _names(node: ast.AST) -> list[str]:
    return [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node) if isinstance(n, (ast.Name,
                                                                                                  ast.Attribute))]


def _counts_folds(loop: ast.For) -> bool:
    """``for i in range(num_folds)`` / ``for fold in range(5)``: a loop counted over folds."""
    counted = _range_call(loop.iter)
    if counted is None:
        return False
    bound = [n for a in counted.args for n in _names(a)]
    return any(_FOLD_NAME.search(n) for n in bound + _names(loop.target))


def counted_fold_loop(tree: ast.Module, line: int) -> int | None:
    """The line of the innermost ``for`` loop around ``line`` when it counts folds (see the module docstring),
    else ``None``."""
    inner: ast.For | None = None
    for node in nodes_of(tree, ast.For):  # (asked for many lines of one program: its loops kept, nodes_of)
        if node.lineno < line <= (node.end_lineno or node.lineno) and (
                inner is None or node.lineno > inner.lineno):
            inner = node
    return inner.lineno if inner is not None and _counts_folds(inner) else None


__all__ = ["counted_fold_loop"]
