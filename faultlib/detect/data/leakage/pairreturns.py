"""A project's own transformer whose ``transform`` hands back the rows and the labels, for the static leakage analysis.

scikit-learn's transformer contract returns the transformed rows alone (developer guide, "Rolling your own
estimator": ``fit_transform(X, y)`` returns ``X_new``), and a class of the program's own with ``fit`` and
``transform`` is read as such a transformer (``Analyzer._class_value``). A project's preprocessing class often
drops or reorders rows as well (outliers, rows with too many gaps), so its ``transform`` returns both parts::

    class Prep(BaseEstimator, TransformerMixin):
        def fit(self, X, y=None):
            self.scaler.fit(X)               # learns the means and spreads of these rows
            return self
        def transform(self, X, y=None):
            X = self.scaler.transform(X)
            if y is not None:
                return X, y
            return X

    X, y = prep.fit_transform(X, y)         # then the split or the cross-validation of X

Python's assignment to a target list binds each name to one item of the returned tuple (language reference, 7.2
"Assignment statements"). The analysis gave the call one value, the transformed rows, and a tuple target bound
every name to nothing known: the fit on every row was lost before the split that followed (issue 17: a crop-yield
pipeline whose preprocessor, imputers and a scaler, returned ``X, y`` before the sweep's K-fold cross-validation).

Here the method's own ``return`` statements say what the call hands back: a tuple whose items name the method's
parameters gives, item by item, the transformed rows (the item naming the rows parameter), the labels passed in
(the item naming the labels parameter) or something unknown. A method that returns the tuple only on some paths
(``if y is not None``) is read so when the call passes labels; one that always returns a tuple, always.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import UNKNOWN, Const, Tup
from faultlib.pyflow.walk import scope_nodes

#: the option of an :class:`Est` that holds :func:`tuple_roles`' answer
OPTION = "tuple_returns"


def _returns(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr | None]:
    """The values of the ``return`` statements of ``func`` itself (not of functions nested in it)."""
    return [n.value for n in scope_nodes(func) if isinstance(n, ast.Return)]


def _root(node: ast.expr) -> str | None:
    """``X`` of ``X``, ``X[keep]``, ``X.loc[rows]``, ``X.to_numpy()``: the variable a returned item is rows of."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        else:
            return node.id if isinstance(node, ast.Name) else None


def _rows_names(func: ast.FunctionDef | ast.AsyncFunctionDef, rows: str) -> set[str]:
    """``rows`` and the names the method binds to values computed from it (``Z = self.scaler.transform(X)``): the
    names that hold the transformed rows, in the order the method's assignments are written."""
    names = {rows}
    assigns = sorted((n for n in scope_nodes(func) if isinstance(n, ast.Assign)), key=lambda n: n.lineno)
    for node in assigns:
        if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node.value)):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _role(item: ast.expr, rows: set[str], labels: str | None) -> str | None:
    """``"y"`` for the labels parameter (or rows of it, ``y[keep]``), ``"x"`` for an item computed from the rows
    (``X``, ``X[keep]``, ``self.scaler.transform(X)``, a name bound to such a value), else ``None``."""
    root = _root(item)
    if root is not None and root == labels:
        return "y"
    if root in rows or any(isinstance(n, ast.Name) and n.id in rows for n in ast.walk(item)):
        return "x"
    return None


def _own_roles(func: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str | None, ...], bool] | None:
    """``(roles, always)`` of a method returning a tuple of its rows/labels parameters (or of rows of them,
    ``X[keep], y[keep]``, or of values computed from the rows, ``self.scaler.transform(X), y``), else ``None``."""
    params = [a.arg for a in func.args.posonlyargs + func.args.args][1:]  # after self
    if not params:
        return None
    rows, labels = params[0], params[1] if len(params) > 1 else None
    returns = _returns(func)
    pairs = [r for r in returns if isinstance(r, ast.Tuple) and len(r.elts) >= 2]
    if not pairs:
        return None
    held = _rows_names(func, rows)
    roles = tuple(_role(e, held, labels) for e in pairs[0].elts)
    if "x" not in roles:
        return None
    return roles, len(pairs) == len(returns)


def _delegates(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``fit_transform`` written as ``return self.fit(X, y).transform(X, y)`` (or ``self.transform(X, y)``)."""
    return any(isinstance(r, ast.Call) and isinstance(r.func, ast.Attribute) and r.func.attr == "transform"
               for r in _returns(func))


def tuple_roles(methods: dict[str, Any]) -> dict[str, tuple[tuple[str | None, ...], bool]]:
    """For ``transform`` and ``fit_transform`` of a class's ``methods`` (name -> :class:`~faultlib.pyflow.values.Func`),
    what a call returns when it returns a tuple: per item ``"x"`` (the transformed rows), ``"y"`` (the labels passed
    in) or ``None``, and whether every path returns it. A ``fit_transform`` delegating to ``transform`` returns what
    ``transform`` does."""
    out: dict[str, tuple[tuple[str | None, ...], bool]] = {}
    transform = methods.get("transform")
    own = _own_roles(transform.node) if transform is not None else None
    if own is not None:
        out["transform"] = own
    fit_transform = methods.get("fit_transform")
    if fit_transform is not None:
        mine = _own_roles(fit_transform.node)
        if mine is not None:
            out["fit_transform"] = mine
        elif own is not None and _delegates(fit_transform.node):
            out["fit_transform"] = own
    elif own is not None:
        out["fit_transform"] = own  # TransformerMixin.fit_transform: fit(X, y).transform(X)
    return out


class PairReturns:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring): the call of a
    project transformer's ``transform``/``fit_transform`` that returns a tuple gives a tuple."""

    def _estimator(self, est: Est, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        out = super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        shape = est.options.get(OPTION, {}).get(name)
        if shape is None or isinstance(out, Tup) or name not in vocab.TRANSFORM | vocab.FIT_TRANSFORM:
            return out
        roles, always = shape
        labels = args[1] if len(args) > 1 else kwargs.get("y")
        if isinstance(labels, Const) and labels.value is None:
            labels = None  # prep.transform(X, None): the rows alone where the tuple is conditional
        if labels is None and not always:
            return out
        return Tup(tuple(out if r == "x" else (labels if labels is not None else UNKNOWN) if r == "y" else UNKNOWN
                         for r in roles))


__all__ = ["OPTION", "PairReturns", "tuple_roles"]
