"""The label column named in the list of feature columns, for the static leakage analysis (``target_in_features``).

A script selects its inputs and its label from one table by name, and the label's name slips into the list::

    X = quakes[["latitude", "longitude", "depth", "mag"]].values
    y = quakes["mag"].values
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)

The model is given the answer as one of its inputs, on the training and the test rows alike, and its test score
measures a copy (Kaufman, Rosset, Perlich & Stitelman, "Leakage in data mining", TKDD 2012: the target itself
among the features; issue 17 wave 101: an earthquake LSTM whose inputs held the magnitude it predicts). No split
fixes it; the fix is to leave the label's column out of the list.

:func:`label_inputs` reads each scope (a function, the module) syntactically: ``X = T[[..., c, ...]]`` (a literal
list of names, also through ``.values``/``.to_numpy()``) and ``y = T[c]`` (or ``T[[c]]``) of the same table
``T``, each name bound once in the scope and ``T[c]`` never stored there, then handed on as a pair: ``X`` and ``y``
the first two arguments of a fit, a split or a cross-validation (``fit``, ``train_test_split``,
``cross_val_score``...), or returned together (``return X, y``, the features and labels a loader hands its caller).
A pair that is shifted or cut apart before it meets (``X[:-1]``, ``y[1:]``: the label's next value from the
current one, a forecast) is not that pair and stays silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.reportedlines import ReportedLines
from faultlib.detect.data.leakage.targets import call_name
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

__all__ = ["LabelInput", "label_input_findings", "label_inputs"]

#: calls whose first two arguments are the features and the labels
_PAIRED = frozenset({"fit", "train_test_split", "cross_val_score", "cross_validate", "cross_val_predict",
                     "fit_transform", "learning_curve", "validation_curve", "permutation_test_score"})
#: conversions that keep a selection's columns
_AS_ARRAY = frozenset({"values", "to_numpy", "copy"})


@dataclass(frozen=True)
class LabelInput:
    """The label column ``column`` of table ``table`` selected as a feature of ``features`` on ``line`` and as the
    label ``label`` on ``label_line``."""

    line: int
    label_line: int
    column: str
    table: str
    features: str
    label: str


def _strip(node: ast.expr) -> ast.expr:
    """``T[cols].values`` / ``T[cols].to_numpy()`` -> ``T[cols]``."""
    while True:
        if isinstance(node, ast.Attribute) and node.attr in _AS_ARRAY:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _AS_ARRAY \
                and not node.args:
            node = node.func.value
        else:
            return node


def _selection(node: ast.expr) -> tuple[str, list[str]] | None:
    """``T[["a", "b"]]`` -> ``("T", ["a", "b"])``; ``T["a"]`` -> ``("T", ["a"])``."""
    node = _strip(node)
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        return None
    key = node.slice
    items = key.elts if isinstance(key, ast.List) else [key]
    if not items or not all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return None
    return node.value.id, [i.value for i in items]  # type: ignore[attr-defined]


def _scopes(tree: ast.Module) -> list[list[ast.AST]]:
    """The nodes of the module's top level and of each function, a nested function's left to it."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    out: list[list[ast.AST]] = []
    for scope in [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        nodes: list[ast.AST] = []
        todo = list(ast.iter_child_nodes(scope))
        while todo:
            n = todo.pop()
            nodes.append(n)
            if not isinstance(n, defs):
                todo.extend(ast.iter_child_nodes(n))
        out.append(nodes)
    return out


def _pairs(nodes: list[ast.AST]) -> list[tuple[str, str]]:
    """``(features, labels)`` names handed on together: a paired call's first two arguments, a returned pair."""
    out = []
    for n in nodes:
        args: list[ast.expr] = []
        if isinstance(n, ast.Call) and call_name(n) in _PAIRED:
            args = list(n.args[:2])
        elif isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple):
            args = list(n.value.elts[:2])
        if len(args) == 2 and all(isinstance(a, ast.Name) for a in args):
            out.append((args[0].id, args[1].id))  # type: ignore[attr-defined]
    return out


def _in_scope(nodes: list[ast.AST]) -> list[LabelInput]:
    bound: dict[str, list[ast.Assign]] = {}
    stored: set[tuple[str, str]] = set()
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.With)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if not isinstance(n, ast.With) else [
                i.optional_vars for i in n.items if i.optional_vars is not None]
            for t in targets:
                for name in (e for e in ast.walk(t) if isinstance(e, ast.Name)):
                    bound.setdefault(name.id, []).append(n)  # type: ignore[arg-type]
                sel = _selection(t) if isinstance(t, ast.Subscript) else None
                if sel is not None:
                    stored.update((sel[0], c) for c in sel[1])
    out = []
    for features, label in _pairs(nodes):
        fx, fy = bound.get(features, []), bound.get(label, [])
        if len(fx) != 1 or len(fy) != 1 or not isinstance(fx[0], ast.Assign) or not isinstance(fy[0], ast.Assign):
            continue
        xs, ys = _selection(fx[0].value), _selection(fy[0].value)
        if xs is None or ys is None or xs[0] != ys[0] or len(ys[1]) != 1 or len(xs[1]) < 2:
            continue
        column = ys[1][0]
        if column in xs[1] and (xs[0], column) not in stored:
            out.append(LabelInput(fx[0].lineno, fy[0].lineno, column, xs[0], features, label))
    return out


def label_inputs(tree: ast.Module) -> list[LabelInput]:
    """Every label column named among its own table's feature columns (see the module docstring)."""
    found = {f.line: f for nodes in _scopes(tree) for f in _in_scope(nodes)}
    return sorted(found.values(), key=lambda f: f.line)


def label_input_findings(tree: ast.Module, smap: Any, findings: list[Finding], function_at: Any) -> list[Finding]:
    """:func:`label_inputs` as ``target_in_features`` findings, leaving out a line already reported so."""
    reported = ReportedLines(findings)
    return [finding for f in label_inputs(tree) for finding in reported.finding(
        "target_in_features", Severity.WARNING, _message(f, smap),
        {**smap.where(f.line), "function": function_at(tree, f.line)},
        {"column_name": f.column, "target": f.column, "table": f.table})]


def _message(f: LabelInput, smap: Any) -> str:
    return (f"the label column `{f.column}` of `{f.table}` is selected as one of the features `{f.features}` "
            f"({smap.describe(f.line)}) and as the label `{f.label}` ({smap.describe(f.label_line)}): the model is "
            f"given its answer among its inputs, on the test rows too. Fix: leave `{f.column}` out of the feature "
            "columns")
