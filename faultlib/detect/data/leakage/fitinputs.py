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


def _flows(tree: ast.AST) -> tuple[tuple[ast.expr, list[ast.expr]], ...]:
    """Every (value, targets) binding of the module: assignments and loops (their iterable to their target)."""
    out: list[tuple[ast.expr, list[ast.expr]]] = []
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            out.append((node.value, list(node.targets)))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            out.append((node.value, [node.target]))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            out.append((node.iter, [node.target]))
        elif isinstance(node, ast.NamedExpr):
            out.append((node.value, [node.target]))
    return tuple(out)


def _fit_calls(tree: ast.AST) -> tuple[ast.Call, ...]:
    return tuple(n for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in _FITS)


class _Reach:
    """The names and columns that carry one call's output."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.columns: set[_Column] = set()

    def bind(self, target: ast.expr) -> bool:
        """Mark what ``target`` writes as carrying the output; True when something new was marked."""
        before = (len(self.names), len(self.columns))
        if isinstance(target, ast.Name):
            self.names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    self.names.add(n.id)
        elif isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(target.value, ast.Name):
            column = _column_key(target)
            if column is not None:
                self.columns.add((target.value.id, column))
            else:
                self.names.add(target.value.id)  # out[mask] = ...: rows of the name
        return (len(self.names), len(self.columns)) != before

    def read_by(self, value: ast.AST) -> bool:
        for n in ast.walk(value):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in self.names:
                return True
            if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name):
                key = _column_key(n)
                if key is not None and (n.value.id, key) in self.columns:
                    return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "groupby" and \
                    isinstance(n.func.value, ast.Name) and any(
                        (n.func.value.id, k) in self.columns for k in group_keys(n)):
                return True
        return False


def _column_key(node: ast.Subscript | ast.Attribute) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    key = node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def reaches_fit(tree: ast.Module, call: ast.Call) -> bool:
    """``call``'s output (see the module docstring) is read by an argument of a fit somewhere in ``tree``."""
    parents = tree_fact(tree, _parents)
    flows = tree_fact(tree, _flows)
    fits = tree_fact(tree, _fit_calls)
    reach = _Reach()
    node: ast.AST = call
    while id(node) in parents and not isinstance(node, ast.stmt):
        parent = parents[id(node)]
        if isinstance(parent, ast.Call) and any(parent is f for f in fits) and node is not parent.func:
            return True  # model.fit(pd.qcut(...), y): learnt from directly
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and node is parent.iter:
            reach.bind(parent.target)
        node = parent
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            reach.bind(target)
    if not reach.names and not reach.columns:
        return False
    changed = True
    while changed:
        changed = False
        for value, targets in flows:
            if reach.read_by(value):
                for target in targets:
                    changed |= reach.bind(target)
    return any(reach.read_by(a) for f in fits for a in [*f.args, *(k.value for k in f.keywords)])


__all__ = ["reaches_fit"]
