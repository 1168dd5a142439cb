"""The range ends of pixels already scaled to [0, 1] are the format's, not a statistic, for the static leakage
analysis.

Image notebooks divide 8-bit pixels by 255 and then min-max scale them once more::

    x_test = x_test / 255.0
    x_test = ((x_test - x_test.min()) / (x_test.max() - x_test.min())) * (hi - lo) + lo

After the division every value lies in [0, 1] by the format (8-bit intensities, 0 to 255); the whole array's
minimum and maximum are those of the format (0 and 1 on MNIST, where every digit has black background and white
strokes), not something learnt from the held-out images, as the house decided for ``x_test.max() - x_test``
(an inversion at the format's 16 levels, KNN Digit; wave 68 labels the min-max after ``/ 255`` the same way). So
``min()``/``max()`` without arguments of a name last divided by the literal 255 (later reshaped or cast, which
keeps the values) is no fit. Any other array's minimum (``x - x.min()`` of raw values) still is.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_BOUNDS = frozenset({"min", "max"})
#: methods of an array that keep its values (a new shape or dtype)
_SHAPE_ONLY = frozenset({"reshape", "astype", "squeeze", "flatten", "ravel", "copy"})


def _by_255(value: ast.expr) -> bool:
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div) and isinstance(
        value.right, ast.Constant) and value.right.value in (255, 255.0)


def _keeps_values(name: str, value: ast.expr) -> bool:
    """``x.reshape(...)``, ``x.astype('float32')``: the same values of ``name``."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        value.func.attr in _SHAPE_ONLY and isinstance(value.func.value, ast.Name) and value.func.value.id == name


def _effect(target: ast.expr, name: str, value: ast.expr) -> bool | None:
    """What assigning ``value`` to ``name`` (in ``target``) does: True divides by 255, None keeps the values,
    False sets others."""
    if not isinstance(target, ast.Name):
        return False
    return True if _by_255(value) else None if _keeps_values(name, value) else False


def pixel_assignments(tree: ast.AST) -> dict[str, list[tuple[int, bool | None]]]:
    """name -> (line, :func:`_effect`) of every assignment to that name, in line order."""
    out: dict[str, list[tuple[int, bool | None]]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            scaled = isinstance(n.op, ast.Div) and isinstance(n.value, ast.Constant) and n.value.value in (255, 255.0)
            out.setdefault(n.target.id, []).append((n.lineno, scaled))
        elif isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                for name in (e.id for e in ast.walk(t) if isinstance(e, ast.Name)):
                    out.setdefault(name, []).append((n.lineno, _effect(t, name, n.value)))
    return {k: sorted(v, key=lambda a: a[0]) for k, v in out.items()}


def format_range_end(node: ast.Call, assigned: dict[str, list[tuple[int, bool | None]]]) -> bool:
    """``node`` is ``x.min()``/``x.max()`` of a name whose values were last set by ``x / 255`` (see the module
    docstring)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr in _BOUNDS and not node.args and not node.keywords and
            isinstance(func.value, ast.Name)):
        return False
    state = False
    for line, scaled in assigned.get(func.value.id, []):
        if line >= node.lineno:
            break
        state = state if scaled is None else scaled
    return state


__all__ = ["format_range_end", "pixel_assignments"]
