"""Reductions of single table cells, for the static leakage analysis.

A function that builds one row of a feature table per call writes each feature into that row's cells and
sometimes combines cells it has just written:

    X.loc[seg_id, 'band_high'] = (X.loc[seg_id, 'avg'] + 2 * X.loc[seg_id, 'sd']).mean()

``X.loc[seg_id, 'avg']`` with one row label and one column label is a scalar (pandas user guide, "Indexing and
selecting data": ``.loc[row_label, col_label]`` returns the single value; ``.at``/``.iat`` only ever return one
value), and so is arithmetic of such scalars and numeric constants. A ``.mean()`` of a scalar is the scalar: no
statistic over rows and no fit, on a training row or a held-out one. :func:`cell_reductions` names such reduction
calls so that the analysis does not take them for hand-written fits (:mod:`.design`).

What is *one cell*, read from the code alone:

* ``t.at[r, c]``, ``t.iat[i, j]``: always one value;
* ``t.loc[r, 'c']`` with a string column label and a row label that is a constant, or a name bound as a parameter
  of the enclosing function or the target of a ``for`` loop and never assigned with ``=`` there. A row key that is
  an assigned name may be a boolean mask (``mask = df.age > 60``; ``df.loc[mask, 'fare'].mean()`` is the mean of
  many rows and stays a fit), and so may a list, a slice or a comparison written in place.

The operand may mix cells with numbers and with names every assignment of which is a numeric constant
(``no_of_std = 2``); anything else (a column, a frame) makes the reduction one over rows again.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.peritem import body_nodes
from faultlib.pyflow.walk import walk_once

#: reductions whose value for one number is that number
_REDUCTIONS = frozenset({"mean", "median", "min", "max", "sum", "nanmean", "nanmedian", "amin", "amax"})
#: accessors whose ``[r, c]`` is one value whatever the keys
_SCALAR_ACCESSORS = frozenset({"at", "iat"})


def _numeric_names(tree: ast.AST) -> frozenset[str]:
    """Names every assignment of which (anywhere in ``tree``) is a numeric constant."""
    seen: dict[str, bool] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign):
            numeric = isinstance(n.value, ast.Constant) and isinstance(n.value.value, (int, float)) and \
                not isinstance(n.value.value, bool)
            for t in n.targets:
                for name in (x.id for x in ast.walk(t) if isinstance(x, ast.Name)):
                    seen[name] = seen.get(name, True) and numeric and isinstance(t, ast.Name)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)):
            target = n.target
            for name in (x.id for x in ast.walk(target) if isinstance(x, ast.Name)):
                seen[name] = False
    return frozenset(k for k, v in seen.items() if v)


def _row_labels(scope: ast.AST, nodes: list[ast.AST]) -> frozenset[str]:
    """Parameters and ``for`` targets of a scope that no ``=`` of the scope rebinds: labels, not masks."""
    bound: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = scope.args
        bound |= {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    assigned: set[str] = set()
    for n in nodes:
        if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name):
            bound.add(n.target.id)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            assigned |= {t.id for t in targets if isinstance(t, ast.Name)}
    return frozenset(bound - assigned)


class _Cells:
    """Whether an expression is one cell, or arithmetic of cells and numbers (see the module docstring)."""

    def __init__(self, labels: frozenset[str], numbers: frozenset[str]):
        self.labels, self.numbers = labels, numbers

    def _cell(self, e: ast.Subscript) -> bool:
        acc = e.value
        if not isinstance(acc, ast.Attribute) or not isinstance(e.slice, ast.Tuple) or len(e.slice.elts) != 2:
            return False
        if acc.attr in _SCALAR_ACCESSORS:
            return True
        row, col = e.slice.elts
        return acc.attr == "loc" and isinstance(col, ast.Constant) and isinstance(col.value, str) and (
            isinstance(row, ast.Constant) or isinstance(row, ast.Name) and row.id in self.labels)

    def walk(self, e: ast.expr) -> bool | None:
        """True: cells (with numbers); None: numbers only; False: anything else."""
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return None
        if isinstance(e, ast.Name):
            return None if e.id in self.numbers else False
        if isinstance(e, ast.Subscript):
            return self._cell(e)
        if isinstance(e, ast.UnaryOp):
            return self.walk(e.operand)
        if isinstance(e, ast.BinOp):
            sides = [self.walk(e.left), self.walk(e.right)]
            return False if False in sides else True if True in sides else None
        return False


def cell_reductions(tree: ast.Module) -> frozenset[int]:
    """Ids of the reduction calls in ``tree`` whose operand is one cell or arithmetic of cells (module docstring)."""
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _REDUCTIONS and
               isinstance(n.func.value, (ast.Subscript, ast.BinOp)) for n in walk_once(tree)):
        return frozenset()  # no reduction of a cell or of arithmetic in the program: nothing to look at
    numbers = _numeric_names(tree)
    out: set[int] = set()
    scopes: list[ast.AST] = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef,
                                                                               ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = list(body_nodes(scope.body))  # type: ignore[attr-defined]
        cells = _Cells(_row_labels(scope, nodes), numbers)
        for n in nodes:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _REDUCTIONS \
                    and cells.walk(n.func.value) is True:
                out.add(id(n))
    return frozenset(out)


__all__ = ["cell_reductions"]
