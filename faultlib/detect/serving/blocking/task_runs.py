"""Running a Celery task inline: ``task.run(...)`` calls the task's own function in the calling thread.

A function of the analysed files decorated as a Celery task (``@app.task``, ``@shared_task``: the decorators
:mod:`~faultlib.detect.serving.blocking.tasks` knows) becomes a ``Task`` whose ``run`` attribute is the original
function: "The body of the task executed by workers" (https://docs.celeryq.dev/en/stable/reference/celery.app.task.html
#celery.app.task.Task.run), so ``crawl.run(url)`` executes ``crawl``'s body right there, like calling ``crawl(url)``,
without a broker or a worker. A ``run`` called from a coroutine therefore runs whatever the task body blocks on, on the
loop. :func:`ran_task` answers that function for the call's target, so the walk follows it as a plain call. Listed at
stop 48 (a task body called inline from an async web handler), fixed at stop 49 (held-out wave 57). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.callee`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted
from faultlib.detect.serving.blocking.tasks import is_task_decorator

__all__ = ["INLINE_RUNS", "ran_task"]

INLINE_RUNS = frozenset({"run"})
"""The attribute of a Celery ``Task`` that is the decorated function itself."""


def ran_task(index, expr: ast.Attribute, func: Func | None) -> Func | None:
    """The task function when ``expr`` is ``task.run`` of a Celery task of the analysed files, else None."""
    if expr.attr not in INLINE_RUNS or func is None or not dotted(expr.value):
        return None
    task = index.callee(expr.value, func)
    if isinstance(task, Func) and any(is_task_decorator(d) for d in task.node.decorator_list):
        return task
    return None
