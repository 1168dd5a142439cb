"""A queue read only when the queue holds an item: ``while not q.empty(): item = q.get()``.

``queue.Queue.get()`` waits while the queue is empty (https://docs.python.org/3/library/queue.html#queue.Queue.get);
under a test that the same queue is not empty -- ``while not q.empty():``/``if not q.empty():``, ``while q.qsize():``,
``while q.qsize() > 0:`` -- a coroutine that is the queue's only reader takes the item at once: between the test and
the ``get`` no other code runs on the loop. (A queue read by several threads could be emptied in between; a
coroutine draining what the loop's own callbacks put is the common shape.) Used by
:mod:`~faultlib.detect.serving.blocking.sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["guarded_get"]


def guarded_get(call: ast.Call, func: Func) -> bool:
    """Whether ``call`` is a waiting ``X.get()`` inside a ``while``/``if`` whose test says ``X`` is not empty."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "get" and not call.args and not call.keywords):
        return False
    queue = dotted(call.func.value)
    if not queue:
        return False
    for node in func.nodes:
        if isinstance(node, (ast.While, ast.If)) and _not_empty(node.test, queue) and any(
                inner is call for stmt in node.body for inner in ast.walk(stmt)):
            return True
    return False


def _not_empty(test: ast.expr, queue: list[str]) -> bool:
    """``not X.empty()``, ``X.qsize()``, ``X.qsize() > 0`` (or ``>= 1``) for the queue ``X``."""
    def called(node: ast.expr, method: str) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
                and not node.args and dotted(node.func.value) == queue)

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return called(test.operand, "empty")
    if called(test, "qsize"):
        return True
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and called(test.left, "qsize")
            and isinstance(test.comparators[0], ast.Constant)):
        op, bound = test.ops[0], test.comparators[0].value
        return (isinstance(op, ast.Gt) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1)
    return False
