"""The rows inside a booster's data wrapper, by the names the script gave them before wrapping.

``xgval = xgb.DMatrix(test_X, label=test_y)`` then ``xgb.train(..., evals=[(xgval, 'val')], early_stopping_rounds=...)``:
the wrapper and its tag say "validation", but the rows were named for testing where the split made them
(``test_X = rows.iloc[folds[1]]``), and the script scores the model on them. The name given to the rows themselves
states their role; a wrapper's name or a watchlist tag is a label for a log line (xgboost's ``evals`` reference:
"list of validation sets for which metrics will evaluated during training"). Used by
:mod:`~faultlib.detect.data.leakage.earlystop` so that a wrapper's validation name does not hide the test part.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

#: data wrappers of the boosting libraries (xgboost ``DMatrix``/``QuantileDMatrix``, lightgbm ``Dataset``, catboost
#: ``Pool``; the first argument, or ``data=``, holds the rows, ``label=`` their labels), and Keras'
#: ``ImageDataGenerator.flow(x, y)`` (Keras API reference: "Takes data & label arrays, generates batches of
#: augmented data"), whose first argument holds the rows and second their labels
WRAPPERS = frozenset({"DMatrix", "QuantileDMatrix", "DeviceQuantileDMatrix", "Dataset", "Pool", "flow"})


def _name(node: ast.expr | None) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):  # test_X.values, test_df[cols]
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _wrapped_names(call: ast.Call) -> list[str | None]:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in WRAPPERS:
        return []
    data = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "data"), None)
    label = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "label"), None)
    return [_name(n) for n in (data, label) if n is not None]


def wrapped_test_names(sets: list[ast.expr], bindings: dict[str, list[ast.expr]],
                       choosing_named) -> list[str]:
    """The test-named variables (``test_X``, ``X_test``; none named for validation) that a wrapper in the evaluation
    sets ``sets`` was built from, directly or through the name it was assigned to (every binding of that name is
    such a wrapper). Empty when any wrapped name is unknown or says validation."""
    out: list[str] = []
    todo, seen = [(s, 0) for s in sets], set()
    while todo:  # watchlist = [(dtrain, 'train'), (dval, 'val')]; dval = DMatrix(X_test, label=y_test): three deep
        expr, depth = todo.pop()
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                if _test_wrapper(node, choosing_named):
                    out.extend(n for n in _wrapped_names(node) if n)
            elif isinstance(node, ast.Name) and depth < 3 and node.id not in seen:
                seen.add(node.id)
                values = bindings.get(node.id, [])
                wraps = [v for v in values if isinstance(v, ast.Call) and _wrapped_names(v)]
                if any(not _test_wrapper(v, choosing_named) for v in wraps):
                    continue  # dval = DMatrix(X_test) here, DMatrix(X_val) there: which one is passed is unknown
                todo.extend((v, depth + 1) for v in values[:4])
    return out


def _test_wrapper(call: ast.Call, choosing_named) -> bool:
    names = _wrapped_names(call)
    return bool(names) and all(n and vocab.looks_like_test(n) and not choosing_named(n) for n in names)


def _functions(tree: ast.Module) -> list[tuple[int, int]]:
    return [(f.lineno, f.end_lineno or f.lineno) for f in walk_once(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]


def _scope(line: int, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The innermost function around ``line`` (``None``: the module level)."""
    inside = [s for s in spans if s[0] <= line <= s[1]]
    return max(inside, key=lambda s: s[0]) if inside else None


def scoped_bindings(bindings: dict[str, list[ast.expr]], tree: ast.Module, line: int) -> dict[str, list[ast.expr]]:
    """``bindings`` (every assignment of a name anywhere in the module: a syntactic map) cut to what a call on
    ``line`` can see: a name assigned in the call's own function keeps only those assignments (a local hides
    the others, Python's scoping rule), any other name keeps its module-level ones; a name bound only inside
    other functions keeps them all (a closure or a global statement the map does not follow). So ``watchlist``
    built in a helper (or in another script joined into the session) does not stand for the module's
    ``watchlist``."""
    spans = _functions(tree)
    here = _scope(line, spans)
    out: dict[str, list[ast.expr]] = {}
    for name, values in bindings.items():
        by_scope = [(v, _scope(getattr(v, "lineno", 0), spans)) for v in values]
        own = [v for v, s in by_scope if s == here]
        module = [v for v, s in by_scope if s is None]
        out[name] = own or module or values
    return out


__all__ = ["WRAPPERS", "scoped_bindings", "wrapped_test_names"]
