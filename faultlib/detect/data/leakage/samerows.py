"""Calls that hand a helper the same rows as its training and its test input, for the static leakage analysis.

A script that compares models writes one helper per model and calls it once per fold, then once more to refit the
best model on every row::

    def fit_svr(X_train, y_train, X_test):
        scaler = StandardScaler()
        a = scaler.fit_transform(X_train)
        b = scaler.transform(X_test)            # named for held-out rows ...
        ...
    for k, (tr, te) in enumerate(folds):
        fit_svr(X.loc[tr], y.loc[tr], X.loc[te])
    _, final = fit_svr(X, y, X)                 # ... but here they are the training rows themselves

In the last call the "test" input is the very table the scaler is fitted on: the helper predicts its own training
rows (a final refit whose predictions nobody scores as held out), and no row is held out at all (issue 17, wave 85:
a forecasting notebook refitting its best model on every day before forecasting the next month). A name inside
the helper says what the helper means its input to be; the call says which rows it got. So while such a call runs,
a variable named for testing (``X_test_scaled``) does not hold its rows out by its name (a split or a held-out file
still does).

:func:`same_rows_calls` finds the calls: a call of a function of the same file whose arguments pass one name to a
parameter named for training rows (``X_train``, ``train_df``) and to a parameter named for held-out rows
(``X_test``, ``X_val``), positionally or by keyword.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once


def _parameters(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in [*func.args.posonlyargs, *func.args.args] if a.arg not in ("self", "cls")]


def _passed(call: ast.Call, params: list[str]) -> dict[str, set[str]]:
    """``{argument name: {parameters it binds}}`` for the plain names a call passes."""
    out: dict[str, set[str]] = {}
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return {}
        if isinstance(arg, ast.Name) and position < len(params):
            out.setdefault(arg.id, set()).add(params[position])
    for keyword in call.keywords:
        if keyword.arg is None:
            return {}
        if isinstance(keyword.value, ast.Name):
            out.setdefault(keyword.value.id, set()).add(keyword.arg)
    return out


def same_rows_calls(tree: ast.Module) -> frozenset[int]:
    """The lines of the calls that pass one name as a helper's training and its held-out input (module docstring)."""
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    calls: list[ast.Call] = []
    for node in walk_once(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.append(node)
    found: set[int] = set()
    for call in calls:
        defined = functions.get(call.func.id, [])  # type: ignore[attr-defined]
        if len(defined) != 1:
            continue
        for params in _passed(call, _parameters(defined[0])).values():
            if any(vocab.looks_like_train(p) for p in params) and any(vocab.looks_like_test(p) for p in params):
                found.add(call.lineno)
    return frozenset(found)


__all__ = ["same_rows_calls"]
