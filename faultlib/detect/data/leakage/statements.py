"""Where statements start, for the static leakage analysis's report.

Statistics written by hand are seen call by call (``(X - X.min()) / (X.max() - X.min())`` computes three), but
they make one feature in one statement: a user wants one finding for it, where the statement starts (issue 17:
one fit, one finding). :func:`statement_starts` maps every line to the simple statement (an assignment, an
expression; never a whole ``if``/``for``/``def``) it belongs to.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.ClassDef)


def statement_starts(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """``line -> (first line, column)`` of the innermost simple statement spanning ``line``."""
    out: dict[int, tuple[int, int]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND) and type(node).__name__ not in (
                "TryStar", "Match"):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                out[line] = (node.lineno, node.col_offset)
    return out


__all__ = ["statement_starts"]
