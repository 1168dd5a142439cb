"""What the interpreter reads from syntax alone: constant folding and the main guard."""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, Const


def fold(op: ast.operator, a: Any, b: Any) -> Any:
    """``a OP b`` for two numbers (``+``, ``-``, ``*``, ``//``) or two strings joined (``DIR + '/train.csv'``, a
    path spelled in the code) as a :class:`Const`; :data:`UNKNOWN` otherwise."""
    if isinstance(op, ast.Add) and isinstance(a, str) and isinstance(b, str) and len(a) + len(b) < 400:
        return Const(a + b)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        return UNKNOWN
    try:
        value = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                 ast.FloorDiv: lambda: a // b}.get(type(op), lambda: None)()
    except (ZeroDivisionError, OverflowError):
        return UNKNOWN
    return UNKNOWN if value is None else Const(value)


def is_main_guard(test: ast.expr) -> bool:
    """``test`` is ``__name__ == "__main__"``."""
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


__all__ = ["fold", "is_main_guard"]
