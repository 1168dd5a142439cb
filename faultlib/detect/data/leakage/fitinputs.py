"""Whether the output of one call of a script reaches a fit: the names and columns it is written to, followed
through the assignments, loops and groupings of the module to the arguments of a ``fit``.

A statistic that only describes the rows it is computed on (a lift table, a reliability diagram's bins) is a
report; the same statistic becomes part of a model when what it computes is learnt from. Cutting the validation
predictions into quantile buckets and fitting one Platt layer per bucket (*histogram binning* and its smoothed
variants, Zadrozny & Elkan, "Obtaining calibrated probability estimates from decision trees and naive Bayesian
classifiers", ICML 2001) makes the bucket edges parameters of the calibrator: when that calibrator is then scored on
the same rows, the edges are a statistic of the scored rows inside the scored model::

    cal = pd.DataFrame({"p": p_val, "y": y_val})
    cal["bucket"] = pd.qcut(cal["p"], q=5)             # edges of the scored rows' predictions
    for b, g in cal.groupby("bucket"):                   # ... each bucket's rows
        models[b] = LogisticRegression().fit(logit(g["p"]), g["y"])   # ... learnt from

:func:`reaches_fit` follows, to a fixpoint over the module: the names a value is bound to (``x = f(out)``,
``for b, g in ...``), the columns written (``table["bucket"] = ...``, read back as ``table["bucket"]``,
``table.bucket`` or ``table.groupby("bucket")``), and the rows of a name written through a subscript (``out[mask] =
...``). It answers whether any argument of a ``fit``, ``fit_transform``, ``fit_predict``, ``partial_fit`` or
``fit_resample`` call reads one of them. Flows through function parameters are not followed.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.groupitems import group_keys
from faultlib.pyflow.walk import tree_fact, walk_once

#: methods that learn from their arguments
_FITS = frozenset({"fit", "fit_transform", "fit_predict", "partial_fit", "fit_resample"})

_Column = tuple[str, str]


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(c): p for p in walk_once(tree) for c in ast.iter_child_nodes(p)}


#: what carries a value: a name (``str``) or a column of a named table (``(table, column)``)
_Key = str | _Column


def _column_key(node: ast.Subscript | ast.Attribute) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    key = node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _read_keys(value: ast.AST) -> frozenset[_Key]:
    """The names and columns ``value`` reads: loaded names, ``table['col']``/``table.col``, and the columns a
    ``table.groupby('col')`` groups by."""
    out: set[_Key] = set()
    for n in ast.walk(value):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name):
            key = _column_key(n)
            if key is not None:
                out.add((n.value.id, key))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "groupby" and \
                isinstance(n.func.value, ast.Name):
            out |= {(n.func.value.id, k) for k in group_keys(n)}
    return frozenset(out)


def _bound_keys(target: ast.expr) -> frozenset[_Key]:
    """What a store into ``target`` marks as carrying the value: the names bound, the column written
    (``table['band'] = ...``), or the rows of a name written through a subscript (``out[mask] = ...``)."""
    if isinstance(target, ast.Name):
        return frozenset({target.id})
    if isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
        return frozenset(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    if isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(target.value, ast.Name):
        column = _column_key(target)
        return frozenset({(target.value.id, column) if column is not None else target.value.id})
    return frozenset()


class _Flows:
    """Every (value, targets) binding of a module -- assignments, and loops from their iterable to their target --
    as the keys the value reads and the keys its targets bind, indexed by read key; and the keys the arguments of
    the module's fits read. Built once per module (:func:`~faultlib.pyflow.walk.tree_fact`)."""

    def __init__(self, tree: ast.AST):
        self.binds: list[frozenset[_Key]] = []
        self.readers: dict[_Key, list[int]] = {}
        for node in walk_once(tree):
            if isinstance(node, ast.Assign):
                value, targets = node.value, list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                value, targets = node.value, [node.target]
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                value, targets = node.iter, [node.target]
            elif isinstance(node, ast.NamedExpr):
                value, targets = node.value, [node.target]
            else:
                continue
            for key in _read_keys(value):
                self.readers.setdefault(key, []).append(len(self.binds))
            self.binds.append(frozenset(k for t in targets for k in _bound_keys(t)))
        self.fits = tuple(n for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(
            n.func, ast.Attribute) and n.func.attr in _FITS)
        self.fit_reads = frozenset(k for f in self.fits for a in [*f.args, *(k.value for k in f.keywords)]
                                   for k in _read_keys(a))

    def reach(self, start: set[_Key]) -> set[_Key]:
        """Every key a value marked ``start`` flows to, through the bindings (a worklist over the index)."""
        marked, todo, done = set(start), list(start), set()
        while todo:
            for i in self.readers.get(todo.pop(), ()):
                if i not in done:
                    done.add(i)
                    fresh = self.binds[i] - marked
                    marked |= fresh
                    todo.extend(fresh)
        return marked


def reaches_fit(tree: ast.Module, call: ast.Call) -> bool:
    """``call``'s output (see the module docstring) is read by an argument of a fit somewhere in ``tree``."""
    parents = tree_fact(tree, _parents)
    flows = tree_fact(tree, _Flows)
    start: set[_Key] = set()
    node: ast.AST = call
    while id(node) in parents and not isinstance(node, ast.stmt):
        parent = parents[id(node)]
        if isinstance(parent, ast.Call) and any(parent is f for f in flows.fits) and node is not parent.func:
            return True  # model.fit(pd.qcut(...), y): learnt from directly
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and node is parent.iter:
            start |= _bound_keys(parent.target)
        node = parent
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            start |= _bound_keys(target)
    return bool(start) and bool(flows.reach(start) & flows.fit_reads)


__all__ = ["reaches_fit"]
