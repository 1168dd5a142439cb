"""Column-name lists handed back by a helper function, for the static leakage analysis.

Notebooks often sort their columns in a helper and unpack the result::

    def feature_types(df):
        numeric = list(df.select_dtypes(include=['int64', 'float64']).columns)
        categorical = list(df.select_dtypes(include=['object']).columns)
        return numeric, categorical

    num_cols, cat_cols = feature_types(train)
    train[num_cols] = SimpleImputer().fit_transform(train[num_cols])

``num_cols`` holds column names exactly as it would if the helper's line were written in place (pandas API,
``DataFrame.columns``: "The column labels of the DataFrame"). Read as data instead, ``train[num_cols]`` would be a
row selection and the imputer's fit would no longer cover the rows a later cross-validation scores (issue 17, stop
48: the SimpleImputer fitted on every training row before a fold loop, missed because its column list came back
from such a helper).

:func:`returned_name_bindings` gives, for every name bound from a call of a module function whose every ``return``
hands back column names at that position (a bare value, or one item of a returned tuple), a stand-in binding to a
frame's ``.columns``; :func:`~faultlib.detect.data.leakage.params.column_names` then reads those names (and the
names built from them: ``features = num_cols + cat_cols``) as column names.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.namelists import names_value
from faultlib.pyflow.walk import walk_once

#: a stand-in expression that reads a frame's ``.columns`` (what ``column_names`` looks for)
_COLUMNS = ast.Attribute(value=ast.Name(id="_", ctx=ast.Load()), attr="columns", ctx=ast.Load())


def _own_returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr | None]:
    """The values ``fn`` itself returns (not those of functions or lambdas nested in it)."""
    out: list[ast.expr | None] = []
    todo: list[ast.AST] = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return):
            out.append(n.value)
        elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names ``fn`` binds only to column names (every assignment of the name in ``fn`` is a list of names as
    :func:`~faultlib.detect.data.leakage.namelists.names_value` reads it syntactically, from names so bound)."""
    assigned: dict[str, list[ast.expr]] = {}
    for n in walk_once(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            assigned.setdefault(n.targets[0].id, []).append(n.value)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and isinstance(n.target, ast.Name):
            assigned.setdefault(n.target.id, []).append(n.value if not isinstance(n, ast.For) else n.iter)
    found: set[str] = set()
    for _ in range(4):  # names built from names (num = list(...columns); cols = num + ['id'])
        more = {k for k, values in assigned.items() if k not in found and all(
            v is not None and names_value(v, found) for v in values)}
        if not more:
            break
        found |= more
    return found


def _name_positions(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[int | None, bool]:
    """Which positions of ``fn``'s result are column names at every ``return``: ``{None: True}`` for a bare value,
    ``{0: True, 1: False}`` for a returned pair; empty when it returns nothing or returns differently shaped values."""
    names = _local_names(fn)
    returns = _own_returns(fn)
    if not returns or any(r is None for r in returns):
        return {}
    if all(isinstance(r, ast.Tuple) for r in returns):
        sizes = {len(r.elts) for r in returns}  # type: ignore[union-attr]
        if len(sizes) != 1:
            return {}
        return {i: all(names_value(r.elts[i], names) for r in returns)  # type: ignore[union-attr]
                for i in range(sizes.pop())}
    return {None: all(names_value(r, names) for r in returns)}  # type: ignore[arg-type]


def returned_name_bindings(tree: ast.Module) -> dict[str, list[ast.expr]]:
    """``{name: [stand-in .columns]}`` for each name bound (``x = f(...)`` or ``a, b = f(...)``) from a call of a
    module function ``f`` that hands back column names at that position (read from ``f``'s own lines only: a
    name ``f`` binds to anything else, data among it, is no list of names)."""
    defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for n in walk_once(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
    positions: dict[str, dict[int | None, bool]] = {}
    for name, fns in defs.items():
        shapes = [_name_positions(fn) for fn in fns]  # a name defined twice: both definitions must agree
        positions[name] = shapes[0] if all(s == shapes[0] for s in shapes) else {}
    out: dict[str, list[ast.expr]] = {}
    for n in walk_once(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Name) and positions.get(n.value.func.id)):
            continue
        shape, target = positions[n.value.func.id], n.targets[0]
        if isinstance(target, ast.Name) and shape.get(None):
            out.setdefault(target.id, []).append(_COLUMNS)
        elif isinstance(target, ast.Tuple):
            for i, item in enumerate(target.elts):
                if isinstance(item, ast.Name) and shape.get(i):
                    out.setdefault(item.id, []).append(_COLUMNS)
    return out


__all__ = ["returned_name_bindings"]
