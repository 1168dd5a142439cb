"""Statistics that fill the fixed columns of a plotting grid, for the static leakage analysis.

A decision-boundary plot predicts a model on a grid of points: two features vary over a mesh
(``np.meshgrid``), the others are held at one value, often their mean over the rows on the plot::

    xx, yy = np.meshgrid(np.arange(x0, x1, h), np.arange(y0, y1, h))
    grid = np.tile(np.mean(X_test, axis=0), (xx.ravel().shape[0], 1))
    grid[:, 0] = xx.ravel()
    grid[:, 1] = yy.ravel()
    Z = model.predict(grid)

``np.tile`` repeats the one row of means into every row of the grid (NumPy reference, ``numpy.tile``: "Construct an
array by repeating A the number of times given by reps"), and the grid's varying columns come from the mesh
(``numpy.meshgrid``: "Return a tuple of coordinate matrices from coordinate vectors"). The grid's rows are made-up
points for a picture: no model is fitted on them and no score is computed against labels, so a mean of the test
rows there is not a statistic fitted on held-out rows (wave 59: two alarms on one KNN notebook).

:func:`grid_fill_statistics` names the statistic calls written inside such a repeat (``np.tile``, ``np.repeat``,
``np.full``, ``np.full_like``, ``np.broadcast_to``) whose result is bound to a name that a later statement fills,
by item assignment, from a name that ``np.meshgrid`` bound. Anything else (a repeated mean used as a baseline
prediction, a grid never given mesh coordinates) keeps the ordinary rule of :mod:`.design`.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: NumPy functions that repeat their argument into a larger array
_REPEATS = frozenset({"tile", "repeat", "full", "full_like", "broadcast_to"})


def _called(node: ast.AST, names: frozenset[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in names


def _mesh_names(tree: ast.AST) -> set[str]:
    """Names bound by ``xx, yy = np.meshgrid(...)`` anywhere in the file."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and _called(node.value, frozenset({"meshgrid"})):
            for target in node.targets:
                out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return out


def _mesh_filled(tree: ast.AST, mesh: set[str]) -> set[str]:
    """Names given mesh coordinates by item assignment (``grid[:, 0] = xx.ravel()``)."""
    out: set[str] = set()
    for node in walk_once(tree):
        if not isinstance(node, ast.Assign) or not any(
                isinstance(n, ast.Name) and n.id in mesh for n in ast.walk(node.value)):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                out.add(target.value.id)
    return out


def grid_fill_statistics(tree: ast.AST) -> frozenset[int]:
    """Ids of the calls inside a repeat whose result becomes a plotting grid (see the module docstring)."""
    mesh = _mesh_names(tree)
    if not mesh:
        return frozenset()
    filled = _mesh_filled(tree, mesh)
    out: set[int] = set()
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in filled and _called(node.value, _REPEATS)):
            continue
        for arg in node.value.args[:2]:  # tile(A, reps), full(shape, fill_value): the repeated value
            out.update(id(n) for n in ast.walk(arg) if isinstance(n, ast.Call))
    return frozenset(out)


__all__ = ["grid_fill_statistics"]
