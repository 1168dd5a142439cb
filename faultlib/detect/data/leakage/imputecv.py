"""A cross-validation that tunes an imputer of one column at a time, for the static leakage analysis.

Model-based imputation written by hand predicts each column that has gaps from the other columns (scikit-learn
user guide, "Imputation of missing values", multivariate imputation: "models each feature with missing values as a
function of other features"): a loop over the columns takes one column as ``y`` and the rest of the same table as
``X`` and may tune that regressor with a grid search::

    for col in cols:
        known = table.dropna(subset=[col])
        X, y = known.drop(labels=col, axis=1), known[col]
        search = GridSearchCV(Lasso(), grid, cv=5).fit(X.values, y.values)

That cross-validation scores how well one feature is predicted from the others. It evaluates no model of the task,
and its score only picks the imputer, so a statistic that filled the other predictors before it (a mean of every
row) is no ``fit_outside_cv``: there is no held-out estimate it inflates (a fill before the task's own split is
reported at that split).

How: the cross-validated ``y`` is ``T[c]`` (or its ``.values``), ``X`` drops that same ``c`` from that same ``T``
(``T.drop(c, axis=1)``, ``T.drop(columns=c)``, ``T.drop(labels=c, axis=1)``; through names the module assigns,
one by one or as a pair: ``X, y = T.drop(c, axis=1), T[c]``), and
``c`` is the name an enclosing ``for c in ...`` binds over anything but a literal list or tuple (a loop over a few
targets written out is the task's own loop, each target's score an evaluation).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_ARRAY_VIEWS = frozenset({"values", "to_numpy", "as_matrix"})


def _resolve(e: ast.expr | None, bindings: dict[str, list[ast.expr]], line: int) -> ast.expr | None:
    """``X.values``, ``y.to_numpy()`` -> ``X``/``y``; a name -> the last expression assigned to it before ``line``."""
    for _ in range(4):
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _ARRAY_VIEWS:
            e = e.func.value
        elif isinstance(e, ast.Attribute) and e.attr in _ARRAY_VIEWS:
            e = e.value
        elif isinstance(e, ast.Name):
            earlier = [b for b in bindings.get(e.id, []) if b.lineno <= line and not isinstance(b, ast.Name)]
            if not earlier:
                return e
            e = max(earlier, key=lambda b: b.lineno)
        else:
            return e
    return e


def _pairs(tree: ast.AST, bindings: dict[str, list[ast.expr]]) -> dict[str, list[ast.expr]]:
    """``X, y = a, b``: the names a tuple assignment binds item by item, beside what ``bindings`` holds for them."""
    out: dict[str, list[ast.expr]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple) and \
                isinstance(n.value, ast.Tuple) and len(n.targets[0].elts) == len(n.value.elts):
            for name, value in zip(n.targets[0].elts, n.value.elts):
                if isinstance(name, ast.Name):
                    out.setdefault(name.id, list(bindings.get(name.id, []))).append(value)
    return out


def _drops(x: ast.expr, table: str, column: str) -> bool:
    """``table.drop(column, ...)``, ``table.drop(columns=column)``, ``table.drop(labels=column, axis=1)``."""
    if not (isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.func.attr == "drop"
            and isinstance(x.func.value, ast.Name) and x.func.value.id == table):
        return False
    given = [*x.args[:1], *(k.value for k in x.keywords if k.arg in ("labels", "columns"))]
    return any(isinstance(g, ast.Name) and g.id == column for g in given)


def _column_loop(tree: ast.AST, name: str, line: int) -> bool:
    """An enclosing ``for name in ...`` over anything but a literal list or tuple."""
    return any(isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name) and n.target.id == name
               and n.lineno <= line <= (n.end_lineno or n.lineno) and not isinstance(n.iter, (ast.List, ast.Tuple))
               for n in walk_once(tree))


def imputes_one_column(x: ast.expr | None, y: ast.expr | None, bindings: dict[str, list[ast.expr]],
                       tree: ast.AST, line: int) -> bool:
    """Whether a cross-validation on ``line`` of ``X = x`` and ``y = y`` tunes an imputer of one column (see the
    module docstring).

    Args:
        x: the expression passed as ``X``.
        y: the expression passed as ``y`` (``None``: no labels, never an imputer).
        bindings: the expressions each simple name is assigned in the module.
        tree: the analysed module.
        line: the line of the cross-validating call.

    Returns:
        ``True`` only when ``y`` is one column ``T[c]`` of a table, ``X`` is ``T`` without ``c`` and ``c`` is a
        column loop's name.
    """
    bindings = {**bindings, **_pairs(tree, bindings)}
    target, features = _resolve(y, bindings, line), _resolve(x, bindings, line)
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Name) and features is not None):
        return False
    table, column = target.value.id, target.slice.id
    return _drops(features, table, column) and _column_loop(tree, column, line)


__all__ = ["imputes_one_column"]
