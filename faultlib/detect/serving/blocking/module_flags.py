"""A module-level branch on a flag the same module sets to a literal just before: only the taken side runs.

``USE_GPU_BATCH = True`` at the top of a server's main module, then ``if USE_GPU_BATCH: service = BatchService(...)``
``else: service = StreamService(...)``: the statements of a module run once, in order, when it is imported (the
Python language reference, "The if statement": "selects exactly one of the suites by evaluating the expressions one
by one until one is found to be true", https://docs.python.org/3/reference/compound_stmts.html#the-if-statement),
so the global holds the batch service and the other class is never built (held-out wave 79: a camera server's
``detection_service`` switched by a literal module constant; both classes' ``start_detection`` were read).
:func:`taken_suite` answers with the suite that runs when the test is ``FLAG`` or ``not FLAG`` and ``FLAG`` is bound
once before in the module, at its top level, to ``True``/``False`` (or ``0``/``1``), and no function of the module
declares it ``global`` (a start-up function may flip it first); else None, and both sides are read as before.
Used by :class:`~faultlib.detect.serving.blocking.model._Collector` for the module's top-level ``if`` statements.
"""

from __future__ import annotations

import ast

__all__ = ["taken_suite"]


def taken_suite(module, node: ast.If) -> list[ast.stmt] | None:
    """The statements of ``node`` (an ``if`` at the top of ``module``, a :class:`~faultlib.detect.serving.blocking.
    model.Module` whose global bindings are collected up to ``node``) that run, or None when its test is no literal
    flag."""
    test, negated = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if not isinstance(test, ast.Name):
        return None
    values = module.global_values.get(test.id, [])
    if len(values) != 1 or values[0][1] is not None or not _flag(values[0][0]) or not _set_at_top(module.tree,
                                                                                                  test.id):
        return None
    if "global" in module.source and test.id in _declared_global_names(module.tree):
        return None
    return node.body if bool(values[0][0].value) != negated else node.orelse


def _flag(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and type(value.value) in (bool, int) and value.value in (0, 1)


def _set_at_top(tree: ast.Module, name: str) -> bool:
    """Whether ``name`` is bound by a plain assignment among the module's own top-level statements (not inside a
    ``try``, loop or other branch, where it may be bound or not)."""
    return any(isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
        isinstance(t, ast.Name) and t.id == name for t in (stmt.targets if isinstance(stmt, ast.Assign)
                                                            else [stmt.target])) for stmt in tree.body)


def _declared_global_names(tree: ast.Module) -> frozenset[str]:
    found = tree.__dict__.get("_faultlib_global_names")
    if found is None:
        found = frozenset(name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names)
        tree.__dict__["_faultlib_global_names"] = found
    return found
