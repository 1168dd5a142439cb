"""Flag features thresholded at a statistic, for the static leakage analysis.

A comparison with a statistic usually makes a *label* (``df['expensive'] = df.price > df.price.mean()``, the
target of a homework) or a *row mask* (``df[df.age > df.age.median()]``), and then the statistic is not a
feature computed from held-out rows (:meth:`faultlib.detect.data.leakage.static.Analyzer._compare` drops it).
One use is a feature: the comparison's result stored into a named **feature column** of a table,

    df['high_rate'] = (df['rate'] > df['rate'].median()).astype(int)
    df['large_loan'] = df['loan'] > df['loan'].quantile(0.75)

is a 0/1 column whose cut point was computed from the table's own rows, exactly like ``pd.qcut(df['rate'], 2)``
(pandas "Discretization and quantiling"): run on the test table, or on all rows before a split, the cut point
saw the held-out rows. Such a comparison keeps its statistic when the stored column is not the target: not a
column the script uses as ``y`` (:func:`faultlib.detect.data.leakage.targets.target_columns`, or
``y = df[TARGET]`` with ``TARGET = 'paid'`` a module constant), not named like a label, and only when the script
names its target column somewhere (else which column is the label is unknown).
A comparison inside a subscript (a row mask, ``df.loc[df.a > m, 'b'] = 0``) stays a mask.

**A flag built in steps** (wave 82): the comparison bound to a plain name first, and the name (alone or joined with
other such names by ``&``, ``|``, ``~``) stored into the feature column,

    high = df['alone'] > df['alone'].quantile(0.95)
    quiet = df['events'] <= 1
    df['loner'] = (high & quiet).astype(int)

is the same 0/1 feature with the same cut point as the one-line form, so the comparison keeps its statistic too
(:func:`_named_flag_compares`). Only in the function (or module) that binds it, only for a name bound once there,
and never for a name that also indexes rows anywhere in that scope (``df[high]``, ``df.loc[high, c]``: a row mask,
:mod:`.outliers`).

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_expr`` and ``_combine``).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.targets import label_like
from faultlib.pyflow.walk import walk_once


class FlagFeatures:
    """Comparisons stored as feature columns keep the statistics they compare with (see the module docstring)."""

    _flag_compares: frozenset[int] = frozenset()

    def _expr(self, node: ast.expr | None, frame: Any) -> Any:
        if isinstance(node, ast.Compare) and id(node) in self._flag_compares:
            return self._combine([self._expr(v, frame) for v in [node.left, *node.comparators]])
        return super()._expr(node, frame)  # type: ignore[misc]


def flag_compares(tree: ast.Module, targets: set) -> frozenset[int]:
    """Ids of the comparison nodes whose result is stored into a named feature column (``t['c'] = <...>``)."""
    targets = targets | _constant_targets(tree)
    if not any(isinstance(t, str) for t in targets):
        return frozenset()
    out: set[int] = set()
    for n in walk_once(tree):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        column = _feature_column(n.targets[0])
        if column is None or column in targets or label_like(column):
            continue
        masks = {id(c) for s in ast.walk(n.value) if isinstance(s, ast.Subscript) for c in ast.walk(s.slice)}
        out |= {id(c) for c in ast.walk(n.value) if isinstance(c, ast.Compare) and id(c) not in masks}
    return frozenset(out | _named_flag_compares(tree, targets))


#: operators that join 0/1 masks into one (``a & b``, ``a | b``, ``~a``)
_MASK_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.Invert, ast.Not, ast.And, ast.Or)


def _outside_slices(node: ast.AST) -> list[ast.AST]:
    """The nodes of ``node`` that are not inside a subscript's index (a row mask or a column key)."""
    inside = {id(c) for s in ast.walk(node) if isinstance(s, ast.Subscript) for c in ast.walk(s.slice)}
    return [c for c in ast.walk(node) if id(c) not in inside]


def _mask_expression(node: ast.expr) -> bool:
    """A comparison, or masks joined by ``&``/``|``/``~`` (``.astype(int)`` of one): a 0/1 value, nothing else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
        return _mask_expression(node.func.value)
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _MASK_OPS) and _mask_expression(node.left) and _mask_expression(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, _MASK_OPS) and _mask_expression(node.operand)
    if isinstance(node, ast.BoolOp):
        return isinstance(node.op, _MASK_OPS) and all(_mask_expression(v) for v in node.values)
    return isinstance(node, ast.Name)


def _scope_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one scope: a function's body, or the module's statements, without the functions (and classes)
    defined in it."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    out: list[ast.AST] = []
    todo = list(scope.body) if isinstance(scope, ast.Module) else list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, nested):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _named_flag_compares(tree: ast.Module, targets: set) -> set[int]:
    """Comparisons bound to a name that reaches a feature column only as a flag (see the module docstring)."""
    out: set[int] = set()
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = _scope_nodes(scope)
        bound: dict[str, list[ast.Assign]] = {}
        for n in nodes:
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for name in (e for e in ast.walk(t) if isinstance(e, ast.Name)):
                        bound.setdefault(name.id, []).append(n)  # type: ignore[arg-type]
        flags = {k: v[0] for k, v in bound.items() if len(v) == 1 and isinstance(v[0], ast.Assign) and len(
            v[0].targets) == 1 and isinstance(v[0].targets[0], ast.Name) and _mask_expression(v[0].value)
                 and any(isinstance(c, ast.Compare) for c in _outside_slices(v[0].value))}
        if not flags:
            continue
        indexing = {e.id for n in nodes if isinstance(n, ast.Subscript) for e in ast.walk(n.slice)
                    if isinstance(e, ast.Name)}
        stored: set[str] = set()
        for n in nodes:
            if not isinstance(n, ast.Assign) or len(n.targets) != 1:
                continue
            column = _feature_column(n.targets[0])
            if column is None or column in targets or label_like(column):
                continue
            stored |= {e.id for e in _outside_slices(n.value) if isinstance(e, ast.Name) and e.id in flags}
        todo = list(stored - indexing)
        seen: set[str] = set()
        while todo:  # high & quiet: each part, and the names those parts are joined from
            name = todo.pop()
            if name in seen or name in indexing:
                continue
            seen.add(name)
            value = flags[name].value
            out |= {id(c) for c in _outside_slices(value) if isinstance(c, ast.Compare)}
            todo += [e.id for e in _outside_slices(value) if isinstance(e, ast.Name) and e.id in flags]
    return out


def _constant_targets(tree: ast.Module) -> set[str]:
    """Target columns named through a module constant: ``TARGET = 'paid'`` ... ``y = train[TARGET]``."""
    consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
              and isinstance(n.value.value, str) for t in n.targets if isinstance(t, ast.Name)}
    out = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and label_like(t.id) for t in n.targets):
            out |= {consts[s.slice.id] for s in ast.walk(n.value) if isinstance(s, ast.Subscript) and isinstance(
                s.slice, ast.Name) and s.slice.id in consts}
    return out


def _feature_column(target: ast.expr) -> str | None:
    """``table['name']`` (a whole column set by name): that name; a name built per column (``df[c + '_above_median']``,
    ``df[f'{c}_high']``): its written part; anything else (a mask store, ``x.loc[m, 'c']``, a plain variable):
    ``None``."""
    if not isinstance(target, ast.Subscript) or not isinstance(target.value, (ast.Name, ast.Attribute)):
        return None
    if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return target.slice.value
    if isinstance(target.slice, (ast.BinOp, ast.JoinedStr)) and not any(
            isinstance(n, (ast.Compare, ast.Call)) and not _is_str_call(n) for n in ast.walk(target.slice)):
        written = "".join(n.value for n in ast.walk(target.slice) if isinstance(n, ast.Constant) and isinstance(
            n.value, str))
        return written or None
    return None


def _is_str_call(node: ast.AST) -> bool:
    """``str('_suffix')`` / ``str(k)``: text, not a row selection."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


__all__ = ["FlagFeatures", "flag_compares"]
