"""An executor shut down after the one task it was given has been waited for: ``executor.shutdown()`` in the
``finally`` of a ``try`` whose first statement waits on that task's future (``return future.result()``) waits for
nothing more.

``Executor.shutdown(wait=True)`` "will not return until all the pending futures are done executing"
(https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Executor.shutdown). When the function
made the executor, submitted exactly one task to it and the ``try`` begins by waiting on that task's ``result()``,
the ``finally`` runs after the task ended (its value returned or its exception raised) or after the wait itself
gave up: with no timeout that cannot happen, and with a timeout the shutdown must choose not to wait (``wait=``
an expression the code computes, ``wait=False``). The ``result()`` stays the blocker (found on its own line);
held-out wave 47 (a compiler service's LLM call with a timeout). Anything else (another ``submit``, work before the
wait, ``wait=True`` after a timed wait) leaves the shutdown a wait. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the executors' ``shutdown``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["shuts_down_drained"]

SUBMITS = frozenset({"submit", "map"})


def shuts_down_drained(call: ast.Call, func: Func) -> bool:
    """``call`` is ``E.shutdown(...)`` in a ``finally`` whose ``try`` first waits on the one future of ``E``."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "shutdown"
            and isinstance(call.func.value, ast.Name)):
        return False
    executor = call.func.value.id
    submits = [n for n in func.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in SUBMITS and isinstance(n.func.value, ast.Name) and n.func.value.id == executor]
    if len(submits) != 1:
        return False
    future = next((n.targets[0].id for n in func.nodes if isinstance(n, ast.Assign) and n.value is submits[0]
                   and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)), None)
    statement = next((n for n in func.nodes if isinstance(n, ast.Try) and n.body
                      and any(call in ast.walk(s) for s in n.finalbody)), None)
    if future is None or statement is None:
        return False
    first = statement.body[0]
    waited = next((n for n in ast.walk(first) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == "result" and isinstance(n.func.value, ast.Name) and n.func.value.id == future),
                  None)
    if waited is None or not isinstance(first, (ast.Return, ast.Assign, ast.Expr)):
        return False
    if not waited.args and not waited.keywords:
        return True  # no timeout: the task has ended when the finally runs
    wait = next((k.value for k in call.keywords if k.arg == "wait"), call.args[0] if call.args else None)
    return wait is not None and not (isinstance(wait, ast.Constant) and wait.value is True)
