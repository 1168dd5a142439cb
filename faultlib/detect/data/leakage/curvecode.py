"""The names and statements that the threshold rules read (:mod:`.thresholds`, :mod:`.thresholdhelpers`): the
scikit-learn curves that score every threshold, the calls that pick one, and a scope's statements in line order."""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import call_name

#: scikit-learn curves that score every threshold; the thresholds are their last output
CURVES = frozenset({"roc_curve", "precision_recall_curve", "det_curve"})
_CHOOSERS = frozenset({"argmax", "argmin", "nanargmax", "nanargmin", "idxmax", "idxmin"})
#: calls that score predictions against labels (scikit-learn's metrics and reports)
_METRIC_SUFFIXES = ("_score", "_matrix", "_report", "_error")


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _targets(node: ast.stmt) -> set[str]:
    """Names a statement binds or changes (``d['k'] = v`` changes ``d``)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    else:
        return set()
    out: set[str] = set()
    for t in targets:
        while isinstance(t, (ast.Subscript, ast.Attribute)):
            t = t.value
        out |= _names(t)
    return out


def _source(node: ast.stmt) -> ast.AST | None:
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return node.value
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter
    return None


#: thresholds.py still imports the callee's name under this name (targets.call_name)
_func_name = call_name


def _chooses(expr: ast.AST, curve: set[str]) -> bool:
    return any(isinstance(n, ast.Call) and call_name(n) in _CHOOSERS and _names(n) & curve for n in ast.walk(expr))


def body_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of ``body`` in line order, nested blocks (``try`` handlers too) included, nested functions and
    classes not."""
    out: list[ast.stmt] = []

    def visit(stmts: list[ast.stmt]) -> None:
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            out.append(s)
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(s, field, []) or [])
            for h in getattr(s, "handlers", []) or []:
                visit(h.body)

    visit(body)
    return sorted(out, key=lambda s: s.lineno)


def _statements(scope: ast.AST) -> list[ast.stmt]:
    """:func:`body_statements` of ``scope``'s body."""
    return body_statements(scope.body)  # type: ignore[attr-defined]


__all__ = ["CURVES", "body_statements", "_CHOOSERS", "_METRIC_SUFFIXES", "_chooses", "_func_name", "_names", "_source", "_statements",
           "_targets"]
