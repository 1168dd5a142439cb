"""A queue read only when the queue holds an item: ``while not q.empty(): item = q.get()``.

``queue.Queue.get()`` waits while the queue is empty (https://docs.python.org/3/library/queue.html#queue.Queue.get);
under a test that the same queue is not empty -- ``while not q.empty():``/``if not q.empty():``, ``while q.qsize():``,
``while q.qsize() > 0:`` -- a coroutine that is the queue's only reader takes the item at once: between the test and
the ``get`` no other code runs on the loop. (A queue read by several threads could be emptied in between; a
coroutine draining what the loop's own callbacks put is the common shape.) A pipe's end read the same way, ``if
conn.poll(timeout): conn.recv()``: ``Connection.poll`` "returns whether there is any data available to be read" and
``recv`` then returns it at once
(https://docs.python.org/3/library/multiprocessing.html#multiprocessing.connection.Connection.poll). Used by
:mod:`~faultlib.detect.serving.blocking.sites`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["guarded_get"]


def guarded_get(call: ast.Call, func: Func) -> bool:
    """Whether ``call`` is a waiting ``X.get()`` (``X.recv()``) inside a ``while``/``if`` whose test says ``X`` is not
    empty (has data)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("get", "recv", "recv_bytes")
            and not call.args and not call.keywords):
        return False
    queue = dotted(call.func.value)
    if not queue:
        return False
    for node in func.nodes:
        if isinstance(node, (ast.While, ast.If)) and _not_empty(node.test, queue, call.func.attr) and any(
                inner is call for stmt in node.body for inner in ast.walk(stmt)):
            return True
    return False


def _not_empty(test: ast.expr, queue: list[str], read: str) -> bool:
    """``not X.empty()``, ``X.qsize()``, ``X.qsize() > 0`` (or ``>= 1``) for the queue ``X``; ``X.poll(...)`` for a
    pipe's ``recv``."""
    if read != "get":
        return (isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "poll"
                and dotted(test.func.value) == queue)

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
