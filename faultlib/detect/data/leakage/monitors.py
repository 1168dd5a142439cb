"""Validation rows a training helper carves from the rows it is given: its own monitor, not the test set.

``def train(self, X, y)`` scales ``X``, then keeps a tenth of it aside (``X_val, y_val = X[idx[:k]], y[idx[:k]]``)
to stop its training early. The helper's parameter is whatever the caller trains on; the caller, not the helper,
decides what is held out (as :meth:`~faultlib.detect.data.leakage.static.Analyzer._parameter_rows` reads a
parameter's name as the helper's role). So rows named for *validation* (``looks_like_validation``: ``X_val``,
``valid``, ``X_dev``; never ``X_test``) cut from a parameter of the enclosing function are not held out by their
name, as long as the helper takes no score on them (a model's ``score``/``predict``/``evaluate``, a metric,
``print``) and does not return them: a helper that reports a validation score keeps its finding.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once


def _base(node: ast.expr) -> str | None:
    """The variable a row selection reads (``X[idx]``, ``X.iloc[idx]``, ``X.loc[idx]``), else ``None``."""
    if not isinstance(node, ast.Subscript):
        return None
    value = node.value
    if isinstance(value, ast.Attribute) and value.attr in ("iloc", "loc"):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _pairs(node: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        return list(zip(target.elts, value.elts))
    return [(target, value)]


def _scores(node: ast.Call) -> bool:
    """A call that reports a score: a model's ``predict``/``score``/``evaluate``, a metric (``accuracy_score``,
    ``mean_squared_error``, ``log_loss``: scikit-learn's ``*_score``/``*_error``/``*_loss`` naming), ``print``."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in vocab.EVALUATE or name in ("evaluate", "print") or isinstance(func, ast.Name) and \
        name.endswith(("_score", "_error", "_loss"))


def _function_monitors(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[tuple[str, int]]:
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    found: set[tuple[str, int]] = set()
    names: set[str] = set()
    assigns = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1),
                     key=lambda n: (n.lineno, n.col_offset))
    for node in assigns:  # X_val = X[idx]; X_val_t = torch.tensor(X_val): a chain of validation names
        for t, v in _pairs(node):
            if isinstance(t, ast.Name) and vocab.looks_like_validation(t.id) and (
                    _base(v) in params or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(v))):
                found.add((t.id, node.lineno))
                names.add(t.id)
    for node in ast.walk(fn):  # ... that no score is taken on, and that the helper does not hand back
        reads = ast.walk(node.value) if isinstance(node, ast.Return) and node.value is not None else \
            (a for arg in [*node.args, *(k.value for k in node.keywords)] for a in ast.walk(arg)) \
            if isinstance(node, ast.Call) and _scores(node) else ()
        if any(isinstance(n, ast.Name) and n.id in names for n in reads):
            return set()
    return found


def monitor_cuts(tree: ast.AST) -> frozenset[tuple[str, int]]:
    """``(name, line)`` of every validation-named variable bound, in a function, to a row selection of one of that
    function's parameters (``X_val, y_val = X[idx[:k]], y[idx[:k]]`` in ``def train(self, X, y)``) or to an
    expression of such a variable (``X_val_t = torch.tensor(X_val)``), when the function neither takes a score on
    any of them (:func:`_scores`) nor returns one: an early-stopping monitor, no reported validation."""
    out: set[tuple[str, int]] = set()
    for fn in walk_once(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out |= _function_monitors(fn)
    return frozenset(out)


__all__ = ["monitor_cuts"]
